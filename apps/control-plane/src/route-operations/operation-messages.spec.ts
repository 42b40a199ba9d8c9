import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readPresence, readReply, replyCommandId } from './operation-messages';

const AT = '2026-01-01T00:00:00.000Z';
const BREAKER = { name: 'route:r', kind: 'route', state: 'OPEN', failures: 1, successes: 0, lastFailureTime: AT };
const CHECK = { status: 'Healthy', url: 'http://u/health', lastCheck: AT, consecutiveSuccesses: 2, consecutiveFailures: 0, latencyMs: 1.5, lastError: null };
const USAGE = { routeId: 'r', hits: 3, rejections: 1, busiestKeys: [{ key: 'ip:a', hits: 3, rejections: 1 }], since: AT };
const reply = (result: unknown) => ({ commandId: 'c', instanceId: 'dp-1', at: AT, result });

test('presence: the contract\'s fields; optional address kept; anything else refused', () => {
  assert.deepEqual(readPresence({ instanceId: 'dp-1', configVersion: 4, startedAt: AT, at: AT, host: '10.0.0.1', port: 8080, extra: true }), {
    instanceId: 'dp-1',
    configVersion: 4,
    startedAt: AT,
    at: AT,
    host: '10.0.0.1',
    port: 8080,
  });
  assert.deepEqual(readPresence({ instanceId: 'dp-1', configVersion: null, startedAt: AT, at: AT }), { instanceId: 'dp-1', configVersion: null, startedAt: AT, at: AT });
  for (const bad of [
    null,
    [],
    { configVersion: 1, startedAt: AT, at: AT },
    { instanceId: '', configVersion: 1, startedAt: AT, at: AT },
    { instanceId: 'x'.repeat(513), configVersion: 1, startedAt: AT, at: AT },
    { instanceId: 'dp', configVersion: -1, startedAt: AT, at: AT },
    { instanceId: 'dp', configVersion: '4', startedAt: AT, at: AT },
    { instanceId: 'dp', startedAt: AT, at: AT },
    { instanceId: 'dp', configVersion: 1, startedAt: 'yesterday', at: AT },
  ]) {
    assert.equal(readPresence(bad), undefined, JSON.stringify(bad));
  }
});

test('replies: each result shape is read when it answers the expected subject', () => {
  assert.deepEqual(readReply(reply({ subject: 'circuit-breaker', breaker: BREAKER }), 'circuit-breaker'), reply({ subject: 'circuit-breaker', breaker: BREAKER }));
  assert.deepEqual(readReply(reply({ subject: 'circuit-breaker', breaker: null }), 'circuit-breaker')?.result, { subject: 'circuit-breaker', breaker: null });
  assert.deepEqual(readReply(reply({ subject: 'cache', purged: 3 }), 'cache')?.result, { subject: 'cache', purged: 3 });
  assert.deepEqual(readReply(reply({ subject: 'health', check: CHECK, breaker: null }), 'health')?.result, { subject: 'health', check: CHECK, breaker: null });
  assert.deepEqual(readReply(reply({ subject: 'rate-limit', usage: USAGE }), 'rate-limit')?.result, { subject: 'rate-limit', usage: USAGE });
  assert.deepEqual(readReply(reply({ subject: 'rate-limit', usage: null }), 'rate-limit')?.result, { subject: 'rate-limit', usage: null });
  assert.equal(replyCommandId(reply({})), 'c');
  assert.equal(replyCommandId({ commandId: 5 }), undefined);
});

test('replies: another subject, a missing envelope field or a malformed result is refused', () => {
  const refused: Array<[unknown, 'circuit-breaker' | 'cache' | 'health' | 'rate-limit']> = [
    [reply({ subject: 'cache', purged: 3 }), 'circuit-breaker'],
    [{ instanceId: 'dp-1', at: AT, result: { subject: 'cache', purged: 1 } }, 'cache'],
    [{ commandId: 'c', at: AT, result: { subject: 'cache', purged: 1 } }, 'cache'],
    [{ commandId: 'c', instanceId: 'dp-1', at: 'later', result: { subject: 'cache', purged: 1 } }, 'cache'],
    [reply({ subject: 'cache', purged: -1 }), 'cache'],
    [reply({ subject: 'cache', purged: 1.5 }), 'cache'],
    [reply({ subject: 'circuit-breaker' }), 'circuit-breaker'],
    [reply({ subject: 'circuit-breaker', breaker: { ...BREAKER, state: 'AJAR' } }), 'circuit-breaker'],
    [reply({ subject: 'circuit-breaker', breaker: { ...BREAKER, kind: 'service' } }), 'circuit-breaker'],
    [reply({ subject: 'circuit-breaker', breaker: { ...BREAKER, failures: '1' } }), 'circuit-breaker'],
    [reply({ subject: 'circuit-breaker', breaker: { ...BREAKER, lastFailureTime: 'never' } }), 'circuit-breaker'],
    [reply({ subject: 'health', check: { ...CHECK, status: 'Fine' }, breaker: null }), 'health'],
    [reply({ subject: 'health', check: { ...CHECK, latencyMs: -1 }, breaker: null }), 'health'],
    [reply({ subject: 'health', check: CHECK }), 'health'],
    [reply({ subject: 'rate-limit', usage: { ...USAGE, busiestKeys: [{ key: 'ip:a', hits: 1 }] } }), 'rate-limit'],
    [reply({ subject: 'rate-limit', usage: { ...USAGE, busiestKeys: 'ip:a' } }), 'rate-limit'],
    [reply({ subject: 'rate-limit', usage: { ...USAGE, since: null } }), 'rate-limit'],
    [reply({ subject: 'rate-limit', usage: { ...USAGE, busiestKeys: Array.from({ length: 1001 }, (_, i) => ({ key: `k${i}`, hits: 1, rejections: 0 })) } }), 'rate-limit'],
    [reply(null), 'cache'],
  ];
  for (const [raw, subject] of refused) assert.equal(readReply(raw, subject), undefined, JSON.stringify(raw).slice(0, 200));
});

test('logs replies: lines of the wire shape are read; a malformed line, too many lines or no total refuse the reply', () => {
  const line = { time: AT, level: 'warn', plane: 'data', context: null, correlationId: 'req-1', message: 'authentication refused', fields: { routeId: 'r' } };
  assert.deepEqual(readReply(reply({ subject: 'logs', lines: [line], total: 7 }), 'logs')?.result, { subject: 'logs', lines: [line], total: 7 });
  const long = readReply(reply({ subject: 'logs', lines: [{ ...line, message: 'x'.repeat(10_000), fields: { blob: 'y'.repeat(20_000) } }], total: 1 }), 'logs');
  assert.equal(long?.result.lines[0]?.message.length, 8192, 'long text is cut');
  assert.deepEqual(long?.result.lines[0]?.fields, { truncated: true }, 'oversized fields are dropped');
  for (const bad of [
    { ...line, level: 'loud' },
    { ...line, plane: 'elsewhere' },
    { ...line, time: 'yesterday' },
    { ...line, message: 5 },
    { ...line, fields: [] },
    { ...line, correlationId: 7 },
  ]) {
    assert.equal(readReply(reply({ subject: 'logs', lines: [bad], total: 1 }), 'logs'), undefined, JSON.stringify(bad));
  }
  assert.equal(readReply(reply({ subject: 'logs', lines: Array.from({ length: 1001 }, () => line), total: 1001 }), 'logs'), undefined);
  assert.equal(readReply(reply({ subject: 'logs', lines: [line] }), 'logs'), undefined);
});
