import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import Redis from 'ioredis';
import path from 'node:path';
import { makeTempDir, request, startUpstream, type LoopbackUpstream } from '@gateway/testing';
import type { RunningDataPlane } from './data-plane-options';
import type { BreakerOpenedEvent } from './engine/ports';
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

describe('rate-limit usage over data planes sharing Redis (in process)', () => {
  const prefix = `gateway-test-${process.pid}-${Date.now()}:`;
  let upstream: LoopbackUpstream;
  const planes: RunningDataPlane[] = [];
  const dir = makeTempDir('resilience-cluster-');
  const configPath = path.join(dir.path, 'proxy.yml');

  before(async () => {
    upstream = await startUpstream({ handler: (_req, res) => res.end('ok') });
    writeFileSync(configPath, `version: "1.0.0"\nroutes:\n  - { id: rl, path: /rl/*, upstream: "${upstream.origin}", rateLimit: { enabled: true, max: 4, windowMs: 600000 } }\n`);
    for (let i = 0; i < 2; i += 1) {
      planes.push(await start({ configPath, dataDir: dir.path, host: '127.0.0.1', port: 0, logLevel: 'silent', redisUrl: 'redis://127.0.0.1:6379', redisKeyPrefix: prefix }));
    }
  });

  after(async () => {
    await Promise.all(planes.map((p) => p.close()));
    await upstream?.close();
    const redis = new Redis('redis://127.0.0.1:6379');
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    dir.remove();
  });

  test('clusterUsage sums every data plane; usage stays this data plane\'s own', async () => {
    const [a, b] = planes as [RunningDataPlane, RunningDataPlane];
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await request(`http://127.0.0.1:${a.port}/rl/x`)).status);
    for (let i = 0; i < 2; i += 1) statuses.push((await request(`http://127.0.0.1:${b.port}/rl/x`)).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 429], 'one shared limit of 4');
    assert.deepEqual(a.resilience.rateLimits.usage('rl')?.hits, 3);
    await b.resilience.rateLimits.clusterUsage('rl'); // publishes b's counts
    const cluster = await a.resilience.rateLimits.clusterUsage('rl');
    assert.deepEqual(cluster, { routeId: 'rl', hits: 4, rejections: 1, busiestKeys: [{ key: 'ip:127.0.0.1', hits: 4, rejections: 1 }], scope: 'cluster', since: null });
  });
});
