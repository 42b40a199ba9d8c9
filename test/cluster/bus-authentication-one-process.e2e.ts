import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { ROUTE_CHANGES_CHANNEL, type RouteChangeMessage, type RouteSnapshot, type SignedBus } from '@gateway/events';
import { request, startGatewayProcess, startTextUpstream, TEST_REDIS_URL, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { caller, eventually, login, type Call } from '../api/auth-fixtures';
import { signedRedisBus } from '../api/signed-redis-bus';

/*
 * One process (`gateway start`, both planes) with REDIS_URL and without CLUSTER_TOKEN: the bus key
 * is generated once into the data directory, the planes' own messages pass through Redis signed
 * with it, and an unsigned route change published to Redis by anyone else is dropped.
 */
const ADMIN = { email: 'bus@example.com', password: 'one-process-bus-password' };

describe('bus authentication in one process over Redis, with a generated key', () => {
  const prefix = `e2e-bus-one:${process.pid}:${randomBytes(4).toString('hex')}:`;
  let gateway: GatewayProcess;
  let good: LoopbackUpstream;
  let evil: LoopbackUpstream;
  let call: Call;
  let token: string;

  before(async () => {
    [good, evil] = await Promise.all([startTextUpstream('good'), startTextUpstream('evil')]);
    gateway = await startGatewayProcess({
      role: 'all',
      config: 'version: "1.0.0"\nroutes: []\n',
      startTimeoutMs: 30_000,
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, CLUSTER_TOKEN: '', JWT_SECRET: '', DATABASE_URL: '', REDIS_URL: TEST_REDIS_URL, REDIS_CHANNEL_PREFIX: prefix, API_RATE_LIMIT_ADMIN_MAX: '10000', API_RATE_LIMIT_GENERAL_MAX: '10000' },
    });
    call = caller(gateway);
    token = await login(call, ADMIN);
  });
  after(async () => {
    await gateway?.stop();
    await good?.close();
    await evil?.close();
  });

  const served = async (): Promise<string> => (await request(`${gateway.url}/r/x`, { timeoutMs: 3000 })).text;

  test('the key file is 0600 and never logged; a route made through the API is served (signed over Redis); an unsigned change is dropped and counted; one signed with the file works', async () => {
    const file = path.join(gateway.dataDir, 'cluster-token');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const clusterToken = readFileSync(file, 'utf8').trim();
    assert.ok(clusterToken.length >= 32);

    const created = await call('POST', '/api/routes', { token, body: { id: 'r', path: '/r/*', upstream: good.origin } });
    assert.equal(created.status, 201, created.text);
    await eventually(async () => (await served()) === 'good', 'the route is served', 5000);

    const route = (await call('GET', '/api/routes/r', { token })).json<{ data: RouteSnapshot['routes'][number] }>().data;
    const version = Number(/^gateway_config_revision (\d+)$/m.exec((await request(`${gateway.url}/metrics`)).text)?.[1]);
    assert.ok(version > 0);
    const reroute: RouteChangeMessage = { kind: 'upserted', version: version + 1, route: { ...route, upstream: evil.origin } };

    const raw = new Redis(TEST_REDIS_URL);
    let signed: SignedBus | undefined;
    try {
      await raw.publish(`${prefix}${ROUTE_CHANGES_CHANNEL}`, JSON.stringify(reroute));
      const dropped = async (): Promise<number> => Number(/^gateway_bus_messages_dropped_total\{reason="unsigned"\} (\d+)$/m.exec((await request(`${gateway.url}/metrics`)).text)?.[1] ?? 0);
      await eventually(async () => (await dropped()) >= 1 || (await served()) !== 'good', 'the unsigned change is counted', 5000);
      assert.equal(await served(), 'good');
      assert.equal(await dropped(), 1);

      signed = signedRedisBus(TEST_REDIS_URL, prefix, clusterToken);
      const bus = signed;
      // Published until heard: the new bus's first publishes go nowhere while it connects (hints are not queued).
      await eventually(async () => {
        await bus.publish(ROUTE_CHANGES_CHANNEL, reroute);
        return (await served()) === 'evil';
      }, 'a change signed with the generated key is applied', 5000);
    } finally {
      raw.disconnect();
      await signed?.close();
    }
    assert.ok(!gateway.output.join('\n').includes(clusterToken), 'the key is never logged');
  });
});
