import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HealthCheckStatus, RateLimitUsage, RouteBreakerView } from '@gateway/events';
import { aggregateBreakers, aggregateChecks, mergeUsage } from './operation-aggregates';

const breaker = (state: RouteBreakerView['state'], failures: number, successes: number, lastFailureTime: string | null, name = 'route:r'): RouteBreakerView => ({
  name,
  kind: name.startsWith('route:') ? 'route' : 'upstream',
  state,
  failures,
  successes,
  lastFailureTime,
});

test('breakers: the most severe state (OPEN > HALF_OPEN > CLOSED) names the breaker; counts summed; the latest failure', () => {
  assert.deepEqual(
    aggregateBreakers([breaker('CLOSED', 2, 0, '2026-01-01T00:00:05.000Z'), breaker('HALF_OPEN', 1, 1, '2026-01-01T00:00:09.000Z', 'users'), null, breaker('CLOSED', 0, 0, null)]),
    { name: 'users', kind: 'upstream', state: 'HALF_OPEN', failures: 3, successes: 1, lastFailureTime: '2026-01-01T00:00:09.000Z' },
  );
  assert.equal(aggregateBreakers([breaker('HALF_OPEN', 0, 0, null), breaker('OPEN', 5, 0, '2026-01-01T00:00:01.000Z'), breaker('CLOSED', 0, 0, null)])?.state, 'OPEN');
  assert.equal(aggregateBreakers([breaker('CLOSED', 0, 0, null), breaker('CLOSED', 0, 0, null)])?.lastFailureTime, null);
  assert.equal(aggregateBreakers([null, null]), null, 'no data plane has a breaker for the route');
  assert.equal(aggregateBreakers([]), null, 'no data plane answered');
});

const check = (status: HealthCheckStatus['status'], lastCheck: string | null, consecutiveFailures = 0): HealthCheckStatus => ({
  status,
  url: 'http://u/health',
  lastCheck,
  consecutiveSuccesses: status === 'Healthy' ? 2 : 0,
  consecutiveFailures,
  latencyMs: lastCheck === null ? null : 3,
  lastError: null,
});

test('health: the record of the most severe data plane (Unhealthy > Degraded > Unknown > Healthy), the latest check among equals', () => {
  const unhealthy = check('Unhealthy', '2026-01-01T00:00:01.000Z', 3);
  assert.equal(aggregateChecks([check('Healthy', '2026-01-01T00:00:09.000Z'), unhealthy, check('Degraded', '2026-01-01T00:00:05.000Z', 1)]), unhealthy);
  const later = check('Healthy', '2026-01-01T00:00:09.000Z');
  assert.equal(aggregateChecks([check('Healthy', '2026-01-01T00:00:02.000Z'), later]), later);
  assert.equal(aggregateChecks([later, check('Unknown', null)])?.status, 'Unknown', 'healthy only once every data plane has seen it');
  assert.equal(aggregateChecks([check('Unknown', null), check('Degraded', '2026-01-01T00:00:01.000Z', 1)])?.status, 'Degraded');
  assert.equal(aggregateChecks([null]), null);
});

const usage = (hits: number, rejections: number, keys: Array<[string, number, number]>): RateLimitUsage => ({
  routeId: 'r',
  hits,
  rejections,
  busiestKeys: keys.map(([key, h, r]) => ({ key, hits: h, rejections: r })),
  since: '2026-01-01T00:00:00.000Z',
});

test('rate-limit usage: totals summed, a key\'s counts summed over data planes, busiest first (ties by key), cut to top', () => {
  const merged = mergeUsage(
    [
      usage(7, 2, [
        ['ip:a', 4, 2],
        ['ip:b', 3, 0],
      ]),
      null,
      usage(5, 0, [
        ['ip:c', 4, 0],
        ['ip:b', 1, 0],
      ]),
    ],
    10,
  );
  assert.deepEqual(merged, {
    hits: 12,
    rejections: 2,
    busiestKeys: [
      { key: 'ip:a', hits: 4, rejections: 2 },
      { key: 'ip:b', hits: 4, rejections: 0 },
      { key: 'ip:c', hits: 4, rejections: 0 },
    ],
  });
  assert.deepEqual(
    mergeUsage([usage(3, 0, [['ip:a', 1, 0], ['ip:b', 2, 0]])], 1).busiestKeys,
    [{ key: 'ip:b', hits: 2, rejections: 0 }],
  );
  assert.deepEqual(mergeUsage([], 10), { hits: 0, rejections: 0, busiestKeys: [] });
});

test('merging never changes the data planes\' own answers', () => {
  const a = usage(1, 0, [['ip:a', 1, 0]]);
  mergeUsage([a, usage(1, 0, [['ip:a', 1, 0]])], 10);
  assert.deepEqual(a.busiestKeys, [{ key: 'ip:a', hits: 1, rejections: 0 }]);
});
