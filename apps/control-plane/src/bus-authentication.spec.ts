import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { EVENTS_CHANNEL, SignedBus, type CircuitBreakerOpenedEvent } from '@gateway/events';
import { RedisBus } from '@gateway/events/redis-bus';
import { EMPTY_PROXY_CONFIG, makeTempDir, TEST_REDIS_URL } from '@gateway/testing';
import type { RunningControlPlane } from './control-plane-options';
import { start } from './start';

const quiet = { warn: () => undefined, info: () => undefined };
const signedRedisBus = (prefix: string, clusterToken: string): SignedBus =>
  new SignedBus(new RedisBus(TEST_REDIS_URL, { channelPrefix: prefix, logger: quiet }), { clusterToken, logger: quiet });

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/*
 * Issue 11: `circuit_breaker.opened` (and later telemetry) travels from data planes to the control
 * plane, which has no listener for it yet: a listener on the control plane's own bus (its start()
 * in this process, over the real Redis; test/ may not import start()) hears only what is signed with the cluster key: an unsigned or forged event published
 * straight to Redis reaches it not, and is counted.
 */
describe("the control plane's bus hears only signed events", () => {
  const prefix = `e2e-bus-cp:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const clusterToken = `cp-events-${randomBytes(12).toString('hex')}`;
  const dir = makeTempDir('bus-auth-cp-');
  let cp: RunningControlPlane;
  let raw: Redis;
  let rightKey: SignedBus;
  let wrongKey: SignedBus;

  before(async () => {
    const configPath = path.join(dir.path, 'proxy.yml');
    writeFileSync(configPath, EMPTY_PROXY_CONFIG);
    cp = await start({
      dataDir: dir.path,
      configPath,
      listen: { host: '127.0.0.1', port: 0 },
      env: { JWT_SECRET: randomBytes(24).toString('hex'), SETTINGS_ENCRYPTION_KEY: randomBytes(24).toString('hex'), CLUSTER_TOKEN: clusterToken, REDIS_URL: TEST_REDIS_URL, REDIS_CHANNEL_PREFIX: prefix, LOG_LEVEL: 'silent' },
    });
    raw = new Redis(TEST_REDIS_URL);
    rightKey = signedRedisBus(prefix, clusterToken);
    wrongKey = signedRedisBus(prefix, 'not-the-cluster-token-0123456789');
    await eventually(async () => (await rightKey.ping!()) && (await wrongKey.ping!()), 'the test buses connected');
  });
  after(async () => {
    raw?.disconnect();
    await rightKey?.close();
    await wrongKey?.close();
    await cp?.close();
    dir.remove();
  });

  const opened = (instanceId: string): CircuitBreakerOpenedEvent => ({
    id: randomBytes(8).toString('hex'),
    type: 'circuit_breaker.opened',
    createdAt: new Date().toISOString(),
    data: { breaker: 'route:r', kind: 'route', routeIds: ['r'], reason: 'manual', instanceId },
  });

  test('unsigned and forged circuit_breaker.opened reach no listener and are counted; a signed one is heard', async () => {
    const heard: CircuitBreakerOpenedEvent[] = [];
    const stop = await cp.bus.subscribe<CircuitBreakerOpenedEvent>(EVENTS_CHANNEL, (event) => heard.push(event));
    try {
      await raw.publish(`${prefix}${EVENTS_CHANNEL}`, JSON.stringify(opened('unsigned')));
      await wrongKey.publish(EVENTS_CHANNEL, opened('forged'));
      // Published after those: once it is heard, they have been received (and dropped) too.
      await eventually(async () => {
        await rightKey.publish(EVENTS_CHANNEL, opened('signed'));
        return heard.length > 0;
      }, 'the signed event is heard');
      assert.deepEqual([...new Set(heard.map((e) => e.data.instanceId))], ['signed']);
      const counts = cp.bus.dropCounts!();
      assert.equal(counts.unsigned, 1);
      assert.equal(counts.unknown_key, 1);
    } finally {
      stop();
    }
  });
});
