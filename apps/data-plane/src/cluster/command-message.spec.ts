import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readCommandMessage } from './command-message';

test('the three command kinds of the contract are read as they are; extra fields are dropped', () => {
  assert.deepEqual(readCommandMessage({ kind: 'circuit-breaker', id: 'c1', routeId: 'users', action: 'trip', extra: 1 }), {
    ok: true,
    command: { kind: 'circuit-breaker', id: 'c1', routeId: 'users', action: 'trip' },
  });
  assert.deepEqual(readCommandMessage({ kind: 'circuit-breaker', id: 'c2', routeId: 'users', action: 'reset' }), {
    ok: true,
    command: { kind: 'circuit-breaker', id: 'c2', routeId: 'users', action: 'reset' },
  });
  assert.deepEqual(readCommandMessage({ kind: 'cache-purge', id: 'c3', routeId: 'users' }), { ok: true, command: { kind: 'cache-purge', id: 'c3', routeId: 'users' } });
  for (const subject of ['circuit-breaker', 'health', 'rate-limit'] as const) {
    assert.deepEqual(readCommandMessage({ kind: 'status-query', id: 'q', routeId: 'r', subject }), { ok: true, command: { kind: 'status-query', id: 'q', routeId: 'r', subject } });
  }
});

test('anything else is refused with the reason, never applied', () => {
  const refused: Array<[unknown, string]> = [
    [null, 'not an object'],
    ['{"kind":"cache-purge"}', 'not an object'],
    [[{ kind: 'cache-purge', id: 'a', routeId: 'r' }], 'not an object'],
    [{ kind: 'cache-purge', routeId: 'r' }, 'id must be a string of 1 to 128 characters'],
    [{ kind: 'cache-purge', id: '', routeId: 'r' }, 'id must be a string of 1 to 128 characters'],
    [{ kind: 'cache-purge', id: 'x'.repeat(129), routeId: 'r' }, 'id must be a string of 1 to 128 characters'],
    [{ kind: 'cache-purge', id: 7, routeId: 'r' }, 'id must be a string of 1 to 128 characters'],
    [{ kind: 'cache-purge', id: 'a' }, 'routeId must be a string of 1 to 512 characters'],
    [{ kind: 'cache-purge', id: 'a', routeId: ['r'] }, 'routeId must be a string of 1 to 512 characters'],
    [{ kind: 'circuit-breaker', id: 'a', routeId: 'r' }, 'action must be trip or reset'],
    [{ kind: 'circuit-breaker', id: 'a', routeId: 'r', action: 'open' }, 'action must be trip or reset'],
    [{ kind: 'status-query', id: 'a', routeId: 'r', subject: 'cache' }, 'subject must be one of circuit-breaker, health, rate-limit'],
    [{ kind: 'reboot', id: 'a', routeId: 'r' }, 'unknown kind'],
    [{ id: 'a', routeId: 'r' }, 'unknown kind'],
  ];
  for (const [raw, reason] of refused) assert.deepEqual(readCommandMessage(raw), { ok: false, reason }, JSON.stringify(raw));
});

test('a logs query names no route; its limit, level and since are bounded like GET /api/logs', () => {
  assert.deepEqual(readCommandMessage({ kind: 'logs-query', id: 'l1', limit: 100 }), { ok: true, command: { kind: 'logs-query', id: 'l1', limit: 100 } });
  assert.deepEqual(readCommandMessage({ kind: 'logs-query', id: 'l2', limit: 5, level: 'warn', since: '2026-01-01T00:00:00.000Z', routeId: 'ignored' }), {
    ok: true,
    command: { kind: 'logs-query', id: 'l2', limit: 5, level: 'warn', since: '2026-01-01T00:00:00.000Z' },
  });
  const refused: Array<[unknown, string]> = [
    [{ kind: 'logs-query', id: 'l', limit: 0 }, 'limit must be an integer from 1 to 1000'],
    [{ kind: 'logs-query', id: 'l', limit: 1001 }, 'limit must be an integer from 1 to 1000'],
    [{ kind: 'logs-query', id: 'l', limit: '10' }, 'limit must be an integer from 1 to 1000'],
    [{ kind: 'logs-query', id: 'l', limit: 10, level: 'loud' }, 'level must be one of fatal, error, warn, info, debug, trace'],
    [{ kind: 'logs-query', id: 'l', limit: 10, since: 'yesterday' }, 'since must be an ISO 8601 timestamp'],
    [{ kind: 'logs-query', limit: 10 }, 'id must be a string of 1 to 128 characters'],
  ];
  for (const [raw, reason] of refused) assert.deepEqual(readCommandMessage(raw), { ok: false, reason }, JSON.stringify(raw));
});

test('a trip may carry holdUntil (an ISO instant); anything else there is refused', () => {
  const until = '2030-01-01T00:00:00.000Z';
  assert.deepEqual(readCommandMessage({ kind: 'circuit-breaker', id: 'h', routeId: 'r', action: 'trip', holdUntil: until }), {
    ok: true,
    command: { kind: 'circuit-breaker', id: 'h', routeId: 'r', action: 'trip', holdUntil: until },
  });
  for (const raw of [
    { kind: 'circuit-breaker', id: 'h', routeId: 'r', action: 'reset', holdUntil: until },
    { kind: 'circuit-breaker', id: 'h', routeId: 'r', action: 'trip', holdUntil: 'soon' },
    { kind: 'circuit-breaker', id: 'h', routeId: 'r', action: 'trip', holdUntil: 5 },
    { kind: 'circuit-breaker', id: 'h', routeId: 'r', action: 'trip', holdUntil: 'x'.repeat(65) },
  ]) {
    assert.deepEqual(readCommandMessage(raw), { ok: false, reason: 'holdUntil must be an ISO 8601 timestamp on a trip' }, JSON.stringify(raw));
  }
});
