import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { RedisThrottlerStorage } from './redis-throttler.storage';

const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

describe('RedisThrottlerStorage (real Redis)', () => {
  const prefix = `test-throttle-unit-${randomUUID()}:`;
  let a: RedisThrottlerStorage;
  let b: RedisThrottlerStorage;
  let inspector: Redis;

  before(async () => {
    a = new RedisThrottlerStorage(REDIS_URL, prefix);
    b = new RedisThrottlerStorage(REDIS_URL, prefix);
    inspector = new Redis(REDIS_URL, { lazyConnect: true });
    // An unreachable Redis fails the suite (connect() of the storage only warns).
    await inspector.connect();
    await Promise.all([a.connect(), b.connect()]);
  });
  after(async () => {
    const keys = await inspector.keys(`${prefix}*`);
    if (keys.length > 0) await inspector.del(...keys);
    inspector.disconnect();
    await Promise.all([a?.onApplicationShutdown(), b?.onApplicationShutdown()]);
  });

  test('two storages share one fixed window: hits counted atomically, blocked past the limit', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).increment('tier:client-1', 60_000, 6, 60_000, 'tier')));
    assert.deepEqual(results.map((r) => r.totalHits).sort((x, y) => x - y), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.equal(results.filter((r) => r.isBlocked).length, 4);
    for (const r of results) {
      assert.ok(r.timeToExpire >= 1 && r.timeToExpire <= 60);
      assert.equal(r.timeToBlockExpire, r.isBlocked ? r.timeToExpire : 0);
    }
    const ttl = await inspector.pttl(`${prefix}throttle:tier:client-1`);
    assert.ok(ttl > 0 && ttl <= 60_000);
    // Another client has its own count.
    assert.equal((await a.increment('tier:client-2', 60_000, 6, 60_000, 'tier')).totalHits, 1);
  });

  test('the window ends: counting starts over', async () => {
    assert.equal((await a.increment('tier:short', 200, 1, 200, 'tier')).isBlocked, false);
    assert.equal((await a.increment('tier:short', 200, 1, 200, 'tier')).isBlocked, true);
    const deadline = Date.now() + 5000;
    while ((await inspector.exists(`${prefix}throttle:tier:short`)) === 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    const fresh = await a.increment('tier:short', 200, 1, 200, 'tier');
    assert.equal(fresh.totalHits, 1);
    assert.equal(fresh.isBlocked, false);
  });

  test('a key that lost its expiry gets one again', async () => {
    await inspector.set(`${prefix}throttle:tier:stuck`, '5');
    const record = await a.increment('tier:stuck', 30_000, 10, 30_000, 'tier');
    assert.equal(record.totalHits, 6);
    assert.ok((await inspector.pttl(`${prefix}throttle:tier:stuck`)) > 0);
  });
});
