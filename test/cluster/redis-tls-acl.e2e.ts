import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import {
  clusterSecrets,
  controlPlaneEnv,
  dataPlaneEnv,
  EMPTY_PROXY_CONFIG,
  loginToManagementApi,
  makeSelfSignedCert,
  request,
  startGatewayProcess,
  startRedisServer,
  startTextUpstream,
  type GatewayProcess,
  type LoopbackUpstream,
  type RedisServer,
} from '@gateway/testing';
import { eventually } from './stand-in-control-plane';

/*
 * Issue 11: every Redis connection over TLS (rediss://, a self-signed server trusted through
 * REDIS_TLS_CA_FILE) as an ACL user (user:password in REDIS_URL), against a private redis-server
 * that has only a TLS port and its default user switched off. A control plane and a data plane
 * (processes) use all three connections: the bus (a route reaches the data plane), the API
 * throttler (its counters in Redis) and the rate-limit store (its counters in Redis).
 */
describe('Redis over TLS with an ACL user: bus, API throttler and rate-limit counters', () => {
  const cert = makeSelfSignedCert();
  const secrets = clusterSecrets('e2e-redis-tls');
  let redis: RedisServer;
  let admin: Redis;
  let upstream: LoopbackUpstream;
  let cp: GatewayProcess;
  let dp: GatewayProcess;

  before(async () => {
    redis = await startRedisServer({ tls: { certPath: cert.certPath, keyPath: cert.keyPath }, user: { name: 'gateway', password: 'tls:acl/pass@0123456789' } });
    admin = new Redis(redis.url, { tls: { ca: cert.cert } });
    upstream = await startTextUpstream('served');
    const tls = { REDIS_TLS_CA_FILE: cert.certPath };
    cp = await startGatewayProcess({ role: 'control-plane', config: EMPTY_PROXY_CONFIG, env: { ...controlPlaneEnv(secrets, redis.url), ...tls }, startTimeoutMs: 30_000 });
    dp = await startGatewayProcess({ role: 'data-plane', config: EMPTY_PROXY_CONFIG, env: { ...dataPlaneEnv(secrets, redis.url, cp.url), ...tls }, startTimeoutMs: 30_000 });
  });
  after(async () => {
    admin?.disconnect();
    await dp?.stop();
    await cp?.stop();
    await upstream?.close();
    await redis?.stop();
    cert.remove();
  });

  test('the control plane is ready with Redis UP; a route made through its API reaches the data plane; both keep their counters in Redis', async () => {
    const ready = (await request(`${cp.url}/health/ready`)).json<{ checks: Record<string, string> }>();
    assert.equal(ready.checks['redis'], 'UP');

    const api = await loginToManagementApi(cp.url, secrets.admin);
    await api.expect(201, 'POST', '/api/routes', { id: 'limited', path: '/limited/*', upstream: upstream.origin, rateLimit: { enabled: true, max: 1000, windowMs: 60000 } });
    await eventually(async () => (await request(`${dp.url}/limited/x`)).text === 'served', 'the route reaches the data plane over the TLS bus', 15_000);

    const keys = async (pattern: string): Promise<string[]> => admin.keys(pattern);
    await eventually(async () => (await keys(`${secrets.channelPrefix}throttle:*`)).length > 0, 'the API throttler counts in Redis', 5000);
    await eventually(async () => (await keys('gateway:*')).length > 0, "the data plane's rate-limit counters are in Redis", 5000);
  });
});
