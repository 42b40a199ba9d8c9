import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRedisServer, type RedisServer } from '@gateway/testing';
import { FailoverThrottlerStorage } from './failover-throttler.storage';
import { RedisThrottlerStorage } from './redis-throttler.storage';

let redis: RedisServer | undefined;
let storage: FailoverThrottlerStorage | undefined;
after(async () => {
  await storage?.onApplicationShutdown();
  await redis?.stop();
});

test('counts in Redis, in memory while Redis is down (still blocking past the limit), and in Redis again once it is back', async () => {
  redis = await startRedisServer();
  const shared = new RedisThrottlerStorage(redis.url, 'unit:');
  await shared.connect();
  storage = new FailoverThrottlerStorage(shared);
  const hit = () => storage!.increment('credentials:10.0.0.1', 60_000, 3, 60_000, 'credentials');

  assert.equal((await hit()).totalHits, 1);
  assert.equal((await hit()).totalHits, 2);

  await redis.kill();
  // The memory count starts at zero (it cannot know Redis's) and blocks like Redis does.
  const local = [await hit(), await hit(), await hit(), await hit()];
  assert.deepEqual(local.map((r) => [r.totalHits, r.isBlocked]), [[1, false], [2, false], [3, false], [4, true]]);
  assert.ok(local[3]!.timeToBlockExpire > 0);

  await redis.restart();
  // The restarted server is empty (no persistence): once ioredis has reconnected, a new count
  // starts there. Until then the memory count stays blocked at 4.
  const deadline = Date.now() + 15_000;
  let record = await hit();
  while (record.totalHits === 4 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    record = await hit();
  }
  assert.deepEqual([record.totalHits, record.isBlocked], [1, false], 'counted in Redis again');
  assert.equal((await hit()).totalHits, 2);
});
