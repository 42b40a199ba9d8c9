import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SignedBus } from '@gateway/events';
import { createHttpSnapshotFetcher } from '@gateway/data-plane/cluster-source';
import { HmacApiKeyVerifier, type RunningDataPlane } from '@gateway/data-plane/data-plane-options';
import { start } from '@gateway/data-plane/start';
import { makeTempDir, request, startGatewayProcess, startUpstream, type ClientResponse, type LoopbackUpstream } from '@gateway/testing';
import { caller, eventually, managementToken, type Call } from '../api/auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../api/control-plane-process';
import { signedRedisBus } from '../api/signed-redis-bus';

/*
 * API keys through a real control plane (its own process, SQLite) and data planes following it
 * over a real Redis (unique channel prefix) and its snapshot endpoint: in-process start() with a
 * SignedBus over a RedisBus, createHttpSnapshotFetcher and an HmacApiKeyVerifier, and `gateway start --role
 * data-plane` for the CLI's reading of API_KEY_SECRET. Redis down: these fail.
 */
const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const JWT_SECRET = 'api-keys-cluster-jwt-secret-0123456789abc';
const API_KEY_SECRET = 'api-keys-cluster-server-key-0123456789abc';
const CLUSTER_TOKEN = 'api-keys-cluster-token-0123456789';

interface Plane {
  plane: RunningDataPlane;
  bus: SignedBus;
  url: string;
  close(): Promise<void>;
}

describe('API keys: control plane and data planes over real Redis', () => {
  const prefix = `test:api-keys:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const dir = makeTempDir('api-keys-cluster-');
  const planeDir = path.join(dir.path, 'plane');
  let upstream: LoopbackUpstream;
  let cp: ControlPlaneProcess;
  let call: Call;
  let plane: Plane;
  const admin = managementToken(JWT_SECRET, 'admin');

  const startPlane = async (dataDir: string, verifier: HmacApiKeyVerifier): Promise<Plane> => {
    const bus = signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN);
    const running = await start({
      configPath: path.join(dataDir, 'absent-proxy.yml'),
      dataDir,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
      routeSource: { kind: 'control-plane', bus, fetchSnapshot: createHttpSnapshotFetcher(cp.url, CLUSTER_TOKEN) },
      apiKeys: verifier,
    });
    return {
      plane: running,
      bus,
      url: `http://127.0.0.1:${running.port}`,
      close: async () => {
        await running.close();
        await bus.close();
      },
    };
  };
  const keyed = (url: string, key?: string): Promise<ClientResponse> => request(`${url}/keyed/x`, { headers: key === undefined ? {} : { 'x-api-key': key } });
  const createKey = async (name: string): Promise<{ id: string; key: string }> => {
    const res = await call('POST', '/api/api-keys', { token: admin, body: { name } });
    assert.equal(res.status, 201, res.text);
    return res.json<{ data: { id: string; key: string } }>().data;
  };

  before(async () => {
    upstream = await startUpstream();
    cp = await startControlPlaneProcess({ env: { JWT_SECRET, CLUSTER_TOKEN, API_KEY_SECRET, REDIS_URL, REDIS_CHANNEL_PREFIX: prefix } });
    call = caller(cp);
    const route = await call('POST', '/api/routes', { token: admin, body: { id: 'keyed', path: '/keyed/*', upstream: upstream.origin, auth: { enabled: true, type: 'apiKey' } } });
    assert.equal(route.status, 201, route.text);
    plane = await startPlane(planeDir, new HmacApiKeyVerifier(API_KEY_SECRET));
    await eventually(async () => (await keyed(plane.url)).status === 401, 'the data plane serves the apiKey route', 2000);
  });
  after(async () => {
    await plane?.close();
    await cp?.stop();
    await upstream?.close();
    dir.remove();
  });

  test('a new key is accepted within 1 s of its creation, a revoked key refused within 1 s of its revocation', async () => {
    const { id, key } = await createKey('cluster-client');
    await eventually(async () => (await keyed(plane.url, key)).status === 200, 'the new key is accepted', 1000);
    const seen = (await keyed(plane.url, key)).json<{ headers: Record<string, string> }>().headers;
    assert.equal(seen['x-gateway-key-id'], id);
    assert.equal((await call('DELETE', `/api/api-keys/${id}`, { token: admin })).status, 204);
    await eventually(async () => (await keyed(plane.url, key)).status === 401, 'the revoked key is refused', 1000);
  });

  test('a data plane without API_KEY_SECRET, or with another one, fails closed: 503 AUTH_NOT_CONFIGURED and a warning, not 401 for every key', async () => {
    const { key } = await createKey('everywhere');
    await eventually(async () => (await keyed(plane.url, key)).status === 200, 'the key works where the secret is right', 1000);
    const follow = { CONTROL_PLANE_URL: cp.url, CLUSTER_TOKEN, REDIS_URL, REDIS_CHANNEL_PREFIX: prefix };
    const config = 'version: "1.0.0"\nproxy: { host: 127.0.0.1, port: 8080 }\n';
    const withSecret = await startGatewayProcess({ role: 'data-plane', config, env: { ...follow, API_KEY_SECRET } });
    const withoutSecret = await startGatewayProcess({ role: 'data-plane', config, env: { ...follow, API_KEY_SECRET: '' } });
    const otherDir = makeTempDir('api-keys-other-');
    const otherSecret = await startPlane(otherDir.path, new HmacApiKeyVerifier('not-the-control-planes-secret-0123456789'));
    try {
      await eventually(async () => (await keyed(withSecret.url, key)).status === 200, '`gateway start --role data-plane` reads API_KEY_SECRET', 2000);
      for (const url of [withoutSecret.url, otherSecret.url]) {
        await eventually(async () => (await keyed(url, key)).status === 503, `503 on ${url}`, 2000);
        for (const res of [await keyed(url, key), await keyed(url), await keyed(url, 'gw_unknown')]) {
          assert.equal(res.status, 503);
          assert.equal(res.json()['error'], 'Service Unavailable');
        }
      }
      const warning = await withoutSecret.waitForOutput('route authentication cannot be enforced');
      assert.match(warning, /API_KEY_SECRET/);
      assert.match(warning, /"routeId":"keyed"/);
    } finally {
      await withSecret.stop();
      await withoutSecret.stop();
      await otherSecret.close();
      otherDir.remove();
    }
  });

  test('a data plane restarted while the control plane is down accepts the keys of its saved snapshot (digests only on disk)', async () => {
    const kept = await createKey('survives-restart');
    const revoked = await createKey('revoked-before-outage');
    await call('DELETE', `/api/api-keys/${revoked.id}`, { token: admin });
    await eventually(async () => (await keyed(plane.url, kept.key)).status === 200 && (await keyed(plane.url, revoked.key)).status === 401, 'kept accepted, revoked refused', 1000);
    await plane.close();
    await cp.stop({ keepDir: true });

    const saved = readFileSync(path.join(planeDir, 'routes.snapshot.json'), 'utf8');
    assert.ok(saved.includes(createHmac('sha256', API_KEY_SECRET).update(kept.key).digest('hex')), 'the digest is saved');
    assert.ok(!saved.includes(kept.key), 'never the key');

    plane = await startPlane(planeDir, new HmacApiKeyVerifier(API_KEY_SECRET));
    assert.equal((await keyed(plane.url, kept.key)).status, 200);
    assert.equal((await keyed(plane.url, revoked.key)).status, 401);
    assert.equal((await keyed(plane.url, 'gw_unknown')).status, 401);
  });
});
