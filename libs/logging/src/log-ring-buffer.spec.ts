import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createGatewayPino } from './gateway-pino';
import { LogRingBuffer, newestWithin } from './log-ring-buffer';

const line = (level: 'debug' | 'info' | 'warn' | 'error', message: string, time: Date) => ({ time: time.toISOString(), level, plane: 'control' as const, context: 'A', correlationId: null, message, fields: {} });

test('bounded: the oldest lines are dropped first', () => {
  const buffer = new LogRingBuffer([], 3);
  for (let i = 0; i < 5; i++) buffer.record(line('info', `line ${i}`, new Date()));
  assert.deepEqual(buffer.query({ limit: 10 }).lines.map((l) => l.message), ['line 2', 'line 3', 'line 4']);
});

test('level means that level and more severe; since is strict; limit keeps the newest', () => {
  const buffer = new LogRingBuffer();
  const t0 = new Date('2026-01-01T00:00:00.000Z');
  buffer.record(line('debug', 'd', t0));
  buffer.record(line('info', 'i', new Date(t0.getTime() + 1)));
  buffer.record(line('warn', 'w', new Date(t0.getTime() + 2)));
  buffer.record(line('error', 'e', new Date(t0.getTime() + 3)));
  assert.deepEqual(buffer.query({ limit: 10, level: 'warn' }).lines.map((l) => l.message), ['w', 'e']);
  assert.deepEqual(buffer.query({ limit: 10, since: new Date(t0.getTime() + 1) }).lines.map((l) => l.message), ['w', 'e']);
  const newest = buffer.query({ limit: 2 });
  assert.deepEqual(newest.lines.map((l) => l.message), ['w', 'e']);
  assert.equal(newest.total, 4);
});

test('a pino destination: the JSON lines of every plane, with plane, component and correlation id', () => {
  const buffer = new LogRingBuffer();
  createGatewayPino({ plane: 'data', level: 'silent', recorder: buffer }).warn({ correlationId: 'c-1', routeId: 'r' }, 'authentication refused');
  createGatewayPino({ plane: 'control', level: 'silent', recorder: buffer }).child({ component: 'Auth' }).info({}, 'login');
  buffer.write('not json');
  const lines = buffer.query({ limit: 10 }).lines;
  assert.deepEqual(
    lines.map(({ time: _time, ...rest }) => rest),
    [
      { level: 'warn', plane: 'data', context: null, correlationId: 'c-1', message: 'authentication refused', fields: { routeId: 'r' } },
      { level: 'info', plane: 'control', context: 'Auth', correlationId: null, message: 'login', fields: {} },
    ],
  );
});

test('secrets never reach the buffer, whoever wrote the line', () => {
  const buffer = new LogRingBuffer(['the-jwt-secret-0123456789', 'cluster-token-abcdef']);
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
  const at = new Date();
  buffer.record(line('info', `secret the-jwt-secret-0123456789 token cluster-token-abcdef`, at));
  buffer.record(line('info', `Authorization: Bearer abc.def.ghi and ${jwt}`, at));
  buffer.record(line('info', '{"email":"a@b.c","password":"hunter2hunter2"} password=s3cret&x=1', at));
  buffer.record(line('info', 'connecting to redis://user:p4ss@127.0.0.1:6379', at));
  buffer.record({ ...line('info', 'fields', at), fields: { detail: 'uses the-jwt-secret-0123456789' } });
  const apiKey = `gw_${'Ab3-_'.repeat(8)}xyz`;
  buffer.record(line('info', `key ${apiKey} (gw_Ab3-_A...) created`, at));
  const text = JSON.stringify(buffer.query({ limit: 10 }).lines);
  assert.match(text, /\(gw_Ab3-_A\.\.\.\)/, 'a display prefix is not a key');
  for (const secret of ['the-jwt-secret-0123456789', 'cluster-token-abcdef', 'abc.def.ghi', jwt, 'hunter2hunter2', 's3cret', 'p4ss', apiKey]) {
    assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
  }
  assert.match(text, /a@b\.c/);
  assert.match(text, /127\.0\.0\.1:6379/);
});

test('newestWithin keeps the newest lines whose JSON fits the bound', () => {
  const at = new Date();
  const lines = ['a', 'b', 'c', 'd'].map((m) => ({ ...line('info', m.repeat(100), at) }));
  const one = JSON.stringify(lines[0]).length + 1;
  assert.deepEqual(newestWithin(lines, one * 2).map((l) => l.message[0]), ['c', 'd']);
  assert.deepEqual(newestWithin(lines, one * 2 - 1).map((l) => l.message[0]), ['d']);
  assert.deepEqual(newestWithin(lines, 10), []);
  assert.equal(newestWithin(lines, one * 10).length, 4);
});
