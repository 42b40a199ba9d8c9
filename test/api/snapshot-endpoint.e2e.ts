import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from '@gateway/testing';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

const JWT_SECRET = 'snapshot-test-secret-0123456789abcdefghijkl';
const CLUSTER_TOKEN = 'cluster-token-0123456789abcdef';
const CONFIG = `
version: "1.0.0"
upstreams:
  - { name: main, url: "http://127.0.0.1:9100" }
routes:
  - { id: one, path: /one/*, upstream: main }
  - { id: off, path: /off, upstream: main, enabled: false }
`;

describe('GET /internal/cluster/snapshot', () => {
  let cp: ControlPlaneProcess;
  before(async () => {
    cp = await startControlPlaneProcess({ config: CONFIG, env: { JWT_SECRET, CLUSTER_TOKEN } });
  });
  after(async () => {
    await cp?.stop();
  });

  const get = (authorization?: string) =>
    request(`${cp.url}/internal/cluster/snapshot`, { headers: authorization === undefined ? {} : { authorization } });

  test('the right cluster token gets the bare snapshot: enabled routes, canonical, with upstreams', async () => {
    const res = await get(`Bearer ${CLUSTER_TOKEN}`);
    assert.equal(res.status, 200, res.text);
    const body = res.json<{ version: number; createdAt: string; routes: Array<{ id: string; source: string }>; upstreams: unknown[]; apiKeys: unknown[] }>();
    // No API_KEY_SECRET here: no apiKeySecretFingerprint (docs/api-keys.md).
    assert.deepEqual(Object.keys(body).sort(), ['apiKeys', 'createdAt', 'routes', 'upstreams', 'version']);
    assert.deepEqual(body.apiKeys, []);
    assert.equal(body.version, 1);
    assert.deepEqual(body.routes.map((r) => [r.id, r.source]), [['one', 'file']]);
    assert.deepEqual(body.upstreams, [
      { name: 'main', targets: [{ url: 'http://127.0.0.1:9100', weight: 100 }], balancing: { algorithm: 'round-robin' }, dnsRefreshInterval: 30000, source: 'file' },
    ]);
    assert.ok(res.headers['x-correlation-id']);
  });

  test('a missing, wrong, truncated or non-bearer token is 401', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', `Bearer ${CLUSTER_TOKEN.slice(0, -1)}`, `Bearer ${CLUSTER_TOKEN}x`, `Basic ${CLUSTER_TOKEN}`, CLUSTER_TOKEN]) {
      const res = await get(authorization);
      assert.equal(res.status, 401, String(authorization));
      assert.equal(res.json()['code'], 'UNAUTHORIZED');
      assert.ok(!res.text.includes(CLUSTER_TOKEN));
    }
  });

  test('a management token does not open it, and it is not under /api', async () => {
    const login = await request(`${cp.url}/api/internal/cluster/snapshot`, { headers: { authorization: `Bearer ${CLUSTER_TOKEN}` } });
    // Not served under /api: deny by default answers 401 on any /api path to a caller without a
    // management token (the cluster token is not one), so nothing tells the path apart.
    assert.equal(login.status, 401);
    assert.equal(login.json()['code'], 'UNAUTHORIZED');
  });
});

describe('GET /internal/cluster/snapshot without CLUSTER_TOKEN', () => {
  test('answers 404, whatever the token', async () => {
    const cp = await startControlPlaneProcess({ env: { JWT_SECRET } });
    try {
      for (const authorization of [undefined, 'Bearer anything-at-all-0123456789']) {
        const res = await request(`${cp.url}/internal/cluster/snapshot`, { headers: authorization ? { authorization } : {} });
        assert.equal(res.status, 404);
      }
    } finally {
      await cp.stop();
    }
  });
});
