import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import Redis from 'ioredis';
import { redisConnectionOptions } from '@gateway/events';

/**
 * One round trip, atomic: count the hit and start the window on the first one. A fixed window
 * (INCR + PEXPIRE) is what every control plane sharing the Redis sees the same way, so the limit
 * holds across instances. PTTL < 0 repairs a key that lost its expiry (it would count forever).
 */
const INCREMENT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {hits, ttl}
`;

type ThrottleRedis = Redis & { throttleIncrement(key: string, windowMs: number): Promise<[number, number]> };

/** @nestjs/throttler storage on Redis (REDIS_URL), keys under `<prefix>throttle:`. */
export class RedisThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger('Throttling');
  private readonly redis: ThrottleRedis;

  constructor(
    redisUrl: string,
    private readonly keyPrefix: string,
    /** REDIS_TLS_CA_FILE's PEM, for a rediss:// URL. */
    tlsCa?: string,
  ) {
    // No offline queue: while Redis is away a command fails at once instead of holding the request.
    this.redis = new Redis(redisUrl, { ...redisConnectionOptions(redisUrl, tlsCa), lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1000 }) as ThrottleRedis;
    this.redis.defineCommand('throttleIncrement', { numberOfKeys: 1, lua: INCREMENT_SCRIPT });
    this.redis.on('error', (error: Error) => this.logger.warn(`redis: ${error.message}`));
  }

  /**
   * Connects before the first request is served, so the first hits are counted too. Redis being
   * away does not stop the start: ioredis keeps reconnecting, and meanwhile increment() fails at
   * once (FailoverThrottlerStorage then counts in memory).
   */
  async connect(): Promise<void> {
    try {
      await this.redis.connect();
    } catch (error) {
      this.logger.warn(`redis unavailable at start, API limits counted in memory until it is back: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async increment(key: string, ttl: number, limit: number, _blockDuration: number, _throttlerName: string): Promise<ThrottlerStorageRecord> {
    const [hits, remainingMs] = await this.redis.throttleIncrement(`${this.keyPrefix}throttle:${key}`, ttl);
    const timeToExpire = Math.max(1, Math.ceil(remainingMs / 1000));
    const isBlocked = hits > limit;
    return { totalHits: hits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0 };
  }

  async onApplicationShutdown(): Promise<void> {
    this.redis.disconnect();
  }
}
