import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, request, startUpstream, type LoopbackUpstream } from '@gateway/testing';
import type { RunningDataPlane } from './data-plane-options';
import type { BreakerOpenedEvent } from './policies/circuit-breaker/breaker-events';
import { start } from './start';

/*
 * The in-process functions the control plane calls (REST endpoints, bus commands): manual
 * Trip/Reset, statuses, rate-limit usage, health-check status; and that their state is keyed by
 * route id so it survives reloads.
 */
describe('resilience controls (in process)', () => {
  let upstream: LoopbackUpstream;
  let plane: RunningDataPlane;
  const dir = makeTempDir('resilience-controls-');
  const configPath = path.join(dir.path, 'proxy.yml');
  const opened: BreakerOpenedEvent[] = [];

  const routes = (extra: string, checkPath = '/health'): string => `
version: "1.0.0"
routes:
  - { id: cb, path: /cb/*, upstream: "${upstream.origin}", circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 10, timeout: 60000 } }
  - { id: rl, path: /rl/*, upstream: "${upstream.origin}", rateLimit: { enabled: true, max: 2, windowMs: 600000 } }
  - { id: hc, path: /hc/*, upstream: "${upstream.origin}", healthCheck: { enabled: true, url: "${upstream.origin}${checkPath}", interval: 60000, timeout: 1000, unhealthyThreshold: 1, healthyThreshold: 1 } }
${extra}`;

  before(async () => {
    upstream = await startUpstream({ handler: (_req, res) => res.end('ok') });
    writeFileSync(configPath, routes(''));
    plane = await start({ configPath, dataDir: dir.path, host: '127.0.0.1', port: 0, logLevel: 'silent', onBreakerOpened: (e) => opened.push(e) });
  });

  after(async () => {
    await plane?.close();
    await upstream?.close();
    dir.remove();
  });

  const get = (p: string) => request(`http://127.0.0.1:${plane.port}${p}`);

  test('trip opens the route breaker everywhere it is asked (503, no upstream call) and reports circuit_breaker.opened; reset closes it', async () => {
    assert.equal(plane.resilience.breakers.status('cb')?.state, 'CLOSED');
    assert.equal(plane.resilience.breakers.status('rl'), undefined, 'a route without a breaker');
    const tripped = plane.resilience.breakers.trip('cb');
    assert.equal(tripped?.state, 'OPEN');
    // Only /cb traffic counts: the hc route's health check probes the same upstream on its own.
    const breakerCalls = (): number => upstream.requests.filter((r) => r.url.startsWith('/cb')).length;
    const calls = breakerCalls();
    const res = await get('/cb/x');
    assert.equal(res.status, 503);
    assert.equal(breakerCalls(), calls);
    assert.equal(opened.length, 1);
    assert.deepEqual({ ...opened[0], at: '' }, { breaker: 'route:cb', kind: 'route', routeIds: ['cb'], reason: 'manual', at: '' });
    assert.equal(plane.resilience.breakers.reset('cb')?.state, 'CLOSED');
    assert.equal((await get('/cb/x')).status, 200);
    assert.deepEqual(
      plane.resilience.breakers.all().map((b) => [b.name, b.kind, b.routeIds, b.state]),
      [['route:cb', 'route', ['cb'], 'CLOSED']],
    );
  });

  test('breaker state survives a reload; a breaker whose route is gone is dropped', async () => {
    plane.resilience.breakers.trip('cb');
    writeFileSync(configPath, routes(`  - { id: extra, path: /extra/*, upstream: "${upstream.origin}" }`));
    assert.equal((await plane.reload()).ok, true);
    assert.equal(plane.resilience.breakers.status('cb')?.state, 'OPEN');
    assert.equal((await get('/cb/x')).status, 503);
    writeFileSync(configPath, routes('').replace(/ {2}- \{ id: cb,.*\n/, ''));
    assert.equal((await plane.reload()).ok, true);
    assert.deepEqual(plane.resilience.breakers.all(), []);
    assert.equal(plane.resilience.breakers.trip('cb'), undefined);
  });

  test('usage(routeId): hits, rejections and the busiest keys', async () => {
    for (let i = 0; i < 3; i += 1) await get('/rl/x');
    const usage = plane.resilience.rateLimits.usage('rl');
    assert.equal(usage?.hits, 2);
    assert.equal(usage?.rejections, 1);
    assert.deepEqual(usage?.busiestKeys, [{ key: 'ip:127.0.0.1', hits: 2, rejections: 1 }]);
    assert.equal(plane.resilience.rateLimits.usage('hc'), undefined);
  });

  test('health.status(routeId): the check (status, last check, consecutive results, latency) and the breaker', async () => {
    let status = plane.resilience.health.status('hc');
    for (let i = 0; i < 200 && status.check?.lastCheck === null; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      status = plane.resilience.health.status('hc');
    }
    assert.equal(status.check?.status, 'Healthy');
    assert.equal(status.check?.consecutiveSuccesses, 1);
    assert.equal(status.check?.consecutiveFailures, 0);
    assert.equal(typeof status.check?.latencyMs, 'number');
    assert.equal(status.breaker, null);
    // A reload that changes the check replaces it (fresh counts); one that drops it stops it.
    writeFileSync(configPath, routes('', '/other-health'));
    assert.equal((await plane.reload()).ok, true);
    assert.equal(plane.resilience.health.status('hc').check?.url, `${upstream.origin}/other-health`);
    writeFileSync(configPath, routes('').replace(/ {2}- \{ id: hc,.*\n/, ''));
    assert.equal((await plane.reload()).ok, true);
    assert.deepEqual(plane.resilience.health.status('hc'), { check: null, breaker: null });
    assert.deepEqual(plane.resilience.health.all(), {});
  });
});
