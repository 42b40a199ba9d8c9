import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BreakerStatus } from '../engine/ports';
import type { RouteTable } from '../engine/route-table';
import { UpstreamHealthRegistry } from '../engine/upstream-health-registry';
import { readiness } from './readiness';

const loaded = {} as RouteTable;
const breaker = (state: BreakerStatus['state']): (() => BreakerStatus) => () => ({ state, failures: 0, successes: 0, lastFailureTime: null });

test('DOWN until a configuration is loaded', () => {
  const health = new UpstreamHealthRegistry();
  assert.deepEqual(readiness(undefined, health), { status: 'DOWN', checks: { config: 'DOWN', upstreams: 'UP' } });
  assert.deepEqual(readiness(loaded, health), { status: 'UP', checks: { config: 'UP', upstreams: 'UP' } });
});

test('DEGRADED when some breakers are open or an upstream is unhealthy, DOWN when every breaker is open', () => {
  const health = new UpstreamHealthRegistry();
  health.setUpstreamNames(['a', 'b']);
  health.registerBreaker('a', breaker('OPEN'));
  health.registerBreaker('b', breaker('CLOSED'));
  assert.equal(readiness(loaded, health).status, 'DEGRADED');
  health.registerBreaker('b', breaker('OPEN'));
  assert.deepEqual(readiness(loaded, health), { status: 'DOWN', checks: { config: 'UP', upstreams: 'DOWN' } });
  health.registerBreaker('a', breaker('CLOSED'));
  health.registerBreaker('b', breaker('CLOSED'));
  health.markHealthy('b', false);
  assert.equal(readiness(loaded, health).status, 'DEGRADED');
  health.markHealthy('b', true);
  assert.equal(readiness(loaded, health).status, 'UP');
});

test("a route's own breaker or check counts toward DEGRADED like an upstream's, never toward DOWN", () => {
  const health = new UpstreamHealthRegistry();
  health.setUpstreamNames(['a']);
  health.registerBreaker('a', breaker('CLOSED'));
  health.registerBreaker('route:r1', breaker('OPEN'));
  assert.deepEqual(readiness(loaded, health), { status: 'DEGRADED', checks: { config: 'UP', upstreams: 'DEGRADED' } });
  health.registerBreaker('route:r1', breaker('HALF_OPEN'));
  assert.equal(readiness(loaded, health).status, 'UP', 'HALF_OPEN lets test requests through');
  health.markHealthy('route:r1', false);
  assert.equal(readiness(loaded, health).status, 'DEGRADED');
  const routesOnly = new UpstreamHealthRegistry();
  routesOnly.registerBreaker('route:r1', breaker('OPEN'));
  routesOnly.registerBreaker('route:r2', breaker('OPEN'));
  assert.equal(readiness(loaded, routesOnly).status, 'DEGRADED', 'no proxy.yml upstream: open route breakers degrade, they do not take the gateway out');
});

test('extra checks are listed beside config and upstreams; a DOWN one makes the gateway not ready', () => {
  const health = new UpstreamHealthRegistry();
  assert.deepEqual(readiness(loaded, health, { database: 'UP', redis: 'UP' }), {
    status: 'UP',
    checks: { config: 'UP', upstreams: 'UP', database: 'UP', redis: 'UP' },
  });
  assert.deepEqual(readiness(loaded, health, { database: 'DOWN' }), { status: 'DOWN', checks: { config: 'UP', upstreams: 'UP', database: 'DOWN' } });
  assert.deepEqual(readiness(undefined, health, { config: 'UP' }).checks.config, 'DOWN', 'an extra check cannot override the gateway own');
});
