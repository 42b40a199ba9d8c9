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

  before(async () => {
    upstream = await startUpstream({ handler: (_req, res) => res.end('ok') });
    const origin = upstream.origin;
    gateway = await startGatewayProcess({
      role: 'all',
      config: `version: "1.0.0"
routes:
  - { id: cb, path: /cb/*, upstream: "${origin}/cb", circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 10, timeout: 60000 } }
  - { id: rl, path: /rl/*, upstream: "${origin}", rateLimit: { enabled: true, max: 2, windowMs: 600000 } }
  - { id: hc, path: /hc/*, upstream: "${origin}", healthCheck: { enabled: true, url: "${origin}/health", interval: 200, timeout: 150, unhealthyThreshold: 1, healthyThreshold: 1 } }
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
    // Only the breaker's route: the hc route's health checks reach the same upstream meanwhile.
    const forwarded = () => upstream.requests.filter((r) => r.url.startsWith('/cb')).length;
    const calls = forwarded();
    assert.equal((await proxy('/cb/x')).status, 503);
    assert.equal(forwarded(), calls);
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

  test('health', async () => {
    await eventually(async () => (await data<{ status: string | null }>('GET', '/api/routes/hc/health')).status === 'Healthy', 'the check is Healthy');
  });

  test('cache purge', async () => {
    assert.equal((await proxy('/cached/a')).headers['x-cache'], 'MISS');
    assert.equal((await proxy('/cached/a')).headers['x-cache'], 'HIT');
    const res = await call('DELETE', '/api/routes/cached/cache', { token });
    assert.equal(res.status, 204);
    assert.equal((await proxy('/cached/a')).headers['x-cache'], 'MISS');
  });
});
