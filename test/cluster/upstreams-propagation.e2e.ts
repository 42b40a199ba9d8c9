import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, startGatewayProcess, startTextUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { caller, eventually, login, managementToken, type Call } from '../api/auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../api/control-plane-process';
import { signedRedisBus } from '../api/signed-redis-bus';
import { startFollowingDataPlane, type FollowingDataPlane } from './following-data-plane';
import type { SignedBus } from '@gateway/events';

/*
 * Upstreams made through /api/upstreams reach the data planes like routes: a route naming an API
 * upstream is served through its target, and a change of the upstream's targets alone (no route
 * change) moves the traffic. Once on the one-process gateway (in-process bus), once with a data
 * plane of its own following a control plane process over a real Redis (unique channel prefix).
 */
const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const ADMIN = { email: 'upstreams@example.com', password: 'upstreams-propagation-password' };
const JWT_SECRET = 'upstreams-propagation-jwt-secret-0123456789';
const CLUSTER_TOKEN = 'upstreams-propagation-cluster-token-0123';

/** Which target answered a request through the proxy at `proxyUrl`. */
async function servedBy(proxyUrl: string): Promise<string> {
  const res = await request(`${proxyUrl}/svc/orders`);
  return res.status === 200 ? res.text : `status ${res.status}`;
}

/** The scenario both deployments run: create, serve, move the targets, follow. */
async function followsTargets(call: Call, token: string, proxyUrl: string, a: LoopbackUpstream, b: LoopbackUpstream): Promise<void> {
  const created = await call('POST', '/api/upstreams', { token, body: { name: 'svc', url: a.origin } });
  assert.equal(created.status, 201, created.text);
  const route = await call('POST', '/api/routes', { token, body: { id: 'via-svc', path: '/svc/*', upstream: 'svc' } });
  assert.equal(route.status, 201, route.text);
  const routeBefore = route.json<{ data: { updatedAt: string } }>().data;
  await eventually(async () => (await servedBy(proxyUrl)) === 'A', 'the route naming the API upstream reaches target A', 10_000);

  const moved = await call('PUT', '/api/upstreams/svc', { token, body: { name: 'svc', url: b.origin } });
  assert.equal(moved.status, 200, moved.text);
  await eventually(async () => (await servedBy(proxyUrl)) === 'B', 'traffic follows the new target B without a route change', 10_000);
  const routeAfter = (await call('GET', '/api/routes/via-svc', { token })).json<{ data: { updatedAt: string; upstreamName: string } }>().data;
  assert.equal(routeAfter.updatedAt, routeBefore.updatedAt, 'the route itself was not changed');
  assert.equal(routeAfter.upstreamName, 'svc');
  // Settled: every later request goes to B.
  for (let i = 0; i < 5; i += 1) assert.equal(await servedBy(proxyUrl), 'B');
  assert.ok(b.requests.every((r) => r.url === '/orders'), 'the route prefix is replaced by the target path');
  // The route test goes where traffic goes: the upstream's first target as it is now.
  const probe = await call('POST', '/api/routes/via-svc/test', { token, body: { path: '/svc/probe' } });
  assert.equal(probe.status, 200, probe.text);
  assert.deepEqual(probe.json<{ data: { url: string; status: number; bodyPreview: string } }>().data.url, `${b.origin}/probe`);
}

describe('API upstreams on the one-process gateway (in-process bus)', () => {
  let a: LoopbackUpstream;
  let b: LoopbackUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    a = await startTextUpstream('A');
    b = await startTextUpstream('B');
    gateway = await startGatewayProcess({
      role: 'all',
      config: 'version: "1.0.0"\nroutes: []\n',
      // Both planes and two scrypt hashes on a loaded machine: a hang guard, not a speed check.
      startTimeoutMs: 60_000,
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, API_KEY_SECRET: '', JWT_SECRET: '', DATABASE_URL: '', REDIS_URL: '', API_RATE_LIMIT_ADMIN_MAX: '10000', API_RATE_LIMIT_GENERAL_MAX: '10000' },
    });
  });
  after(async () => {
    await gateway?.stop();
    await a?.close();
    await b?.close();
  });

  test('a route naming an API upstream reaches its target; a target change is followed without a route change', async () => {
    const call = caller(gateway);
    await followsTargets(call, await login(call, ADMIN), gateway.url, a, b);
  });
});

describe('API upstreams reach a separate data plane over Redis', () => {
  const prefix = `test:upstreams:${process.pid}:${randomBytes(4).toString('hex')}:`;
  let a: LoopbackUpstream;
  let b: LoopbackUpstream;
  let cp: ControlPlaneProcess;
  let plane: FollowingDataPlane<SignedBus>;

  before(async () => {
    a = await startTextUpstream('A');
    b = await startTextUpstream('B');
    cp = await startControlPlaneProcess({ env: { JWT_SECRET, CLUSTER_TOKEN, REDIS_URL, REDIS_CHANNEL_PREFIX: prefix } });
    plane = await startFollowingDataPlane(signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN), cp.url, CLUSTER_TOKEN);
  });
  after(async () => {
    await plane?.close();
    await cp?.stop();
    await a?.close();
    await b?.close();
  });

  test('a route naming an API upstream reaches its target; a target change is followed without a route change', async () => {
    await followsTargets(caller(cp), managementToken(JWT_SECRET, 'admin'), plane.url, a, b);
  });

  test('the snapshot carries proxy.yml and API upstreams merged, each with its source', async () => {
    const res = await request(`${cp.url}/internal/cluster/snapshot`, { headers: { authorization: `Bearer ${CLUSTER_TOKEN}` } });
    const upstreams = res.json<{ upstreams: Array<{ name: string; source: string; targets: Array<{ url: string }> }> }>().upstreams;
    assert.deepEqual(upstreams.map((u) => [u.name, u.source, u.targets.map((t) => t.url)]), [['svc', 'api', [b.origin]]]);
  });
});
