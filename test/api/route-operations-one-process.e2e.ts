import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { ADMIN, caller, eventually, login, type Call } from './auth-fixtures';

/*
 * The route operations through the one-process gateway (`gateway start --role all`: both planes,
 * one port, the in-process bus): the same command path with one data plane.
 */
describe('route operations in the one-process gateway', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  let call: Call;
  let token: string;
  /** What the `hc` route's health endpoint answers; `/pending/health` never answers. */
  let healthStatus = 200;

  before(async () => {
    upstream = await startUpstream({
      handler: (req, res) => {
        if (req.url === '/pending/health') return;
        res.statusCode = req.url === '/health' ? healthStatus : 200;
        res.end('ok');
      },
    });
    const origin = upstream.origin;
    gateway = await startGatewayProcess({
      role: 'all',
      config: `version: "1.0.0"
routes:
  - { id: cb, path: /cb/*, upstream: "${origin}/cb", circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 10, timeout: 60000 } }
  - { id: rl, path: /rl/*, upstream: "${origin}", rateLimit: { enabled: true, max: 2, windowMs: 600000 } }
  - { id: hc, path: /hc/*, upstream: "${origin}", healthCheck: { enabled: true, url: "${origin}/health", interval: 100, timeout: 100, unhealthyThreshold: 100000, healthyThreshold: 1 } }
  - { id: pending, path: /pending/*, upstream: "${origin}/pending", healthCheck: { enabled: true, interval: 600000, timeout: 600000 } }
  - { id: cached, path: /cached/*, upstream: "${origin}", cache: { enabled: true, ttl: 60000 } }
`,
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, JWT_SECRET: 'one-process-route-ops-secret-0123456789ab' },
    });
    call = caller(gateway);
    token = await login(call, ADMIN);
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const proxy = (p: string) => request(`${gateway.url}${p}`);
  const data = async <T>(method: string, urlPath: string, status = 200): Promise<T> => {
    const res = await call(method, urlPath, { token });
    assert.equal(res.status, status, `${method} ${urlPath}: ${res.text}`);
    return res.json<{ data: T }>().data;
  };

  test('trip and reset the breaker of a proxy.yml route; GET shows the one data plane', async () => {
    type Breaker = { state: string; dataPlanes: Array<{ instanceId: string; breaker: { state: string } | null }>; missing: string[] };
    const tripped = await data<Breaker>('POST', '/api/routes/cb/circuit-breaker/trip');
    assert.equal(tripped.state, 'OPEN');
    assert.equal(tripped.dataPlanes.length, 1);
    assert.deepEqual(tripped.missing, []);
    // Only /cb calls: health checks reach the same upstream meanwhile.
    const cbCalls = (): number => upstream.requests.filter((r) => r.url.startsWith('/cb')).length;
    const calls = cbCalls();
    assert.equal((await proxy('/cb/x')).status, 503);
    assert.equal(cbCalls(), calls);
    assert.equal((await data<Breaker>('GET', '/api/routes/cb/circuit-breaker')).state, 'OPEN');
    assert.equal((await data<Breaker>('POST', '/api/routes/cb/circuit-breaker/reset')).state, 'CLOSED');
    assert.equal((await proxy('/cb/x')).status, 200);
  });

  test('rate-limit usage', async () => {
    for (let i = 0; i < 3; i += 1) await proxy('/rl/x');
    const report = await data<{ enabled: boolean; usage: { hits: number; rejections: number } }>('GET', '/api/routes/rl/rate-limit');
    assert.equal(report.enabled, true);
    assert.deepEqual([report.usage.hits, report.usage.rejections], [2, 1]);
  });

  test('health: Unknown before the first verdict, Healthy, Degraded while failures stay below unhealthyThreshold', async () => {
    type Health = { status: string | null; check: { status: string; lastCheck: string | null; consecutiveFailures: number } | null };
    const health = (id: string): Promise<Health> => data<Health>('GET', `/api/routes/${id}/health`);
    const pending = await health('pending');
    assert.deepEqual([pending.status, pending.check?.status, pending.check?.lastCheck], ['Unknown', 'Unknown', null], 'its first check is still unanswered');
    assert.equal((await proxy('/pending/x')).status, 200, 'an Unknown target gets traffic');

    await eventually(async () => (await health('hc')).status === 'Healthy', 'the check is Healthy');
    healthStatus = 503;
    let seen: Health | undefined;
    await eventually(async () => ((seen = await health('hc')), seen.status === 'Degraded'), 'the check is Degraded');
    assert.equal(seen!.check?.status, 'Degraded');
    assert.ok(seen!.check!.consecutiveFailures >= 1);
    assert.equal((await proxy('/hc/x')).status, 200, 'a Degraded target gets traffic');
    healthStatus = 200;
    await eventually(async () => (await health('hc')).status === 'Healthy', 'Healthy again');
  });

  test('cache purge', async () => {
    assert.equal((await proxy('/cached/a')).headers['x-cache'], 'MISS');
    assert.equal((await proxy('/cached/a')).headers['x-cache'], 'HIT');
    const res = await call('DELETE', '/api/routes/cached/cache', { token });
    assert.equal(res.status, 204);
    assert.equal((await proxy('/cached/a')).headers['x-cache'], 'MISS');
  });
});
