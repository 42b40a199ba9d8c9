import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { redisConnectionOptions } from '@gateway/events';
import type { Logger } from '../engine/ports';
import type { RateLimitAlgorithm, RateLimitDecision, RateLimitRule, RateLimitStore } from '../policies/rate-limit/rate-limit-store';

/*
 * One atomic script per strategy: line-for-line ports of src/policies/rate-limit/rate-limit-algorithms.ts
 * over a hash {a, t} (a sorted set for the sliding log). The clock is Redis's own (TIME), so every data
 * plane that shares the server counts on the same time line.
 */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
`;

const SCRIPTS: Record<RateLimitAlgorithm, string> = {
  'token-bucket': `${NOW}
local rate = limit / window
local s = redis.call('HMGET', KEYS[1], 'a', 't')
local tokens = limit
if s[1] then tokens = math.min(limit, tonumber(s[1]) + math.max(0, now - tonumber(s[2])) * rate) end
local allowed = 0
if tokens >= 1 then tokens = tokens - 1 allowed = 1 end
local toFull = math.ceil((limit - tokens) / rate)
redis.call('HSET', KEYS[1], 'a', tostring(tokens), 't', now)
redis.call('PEXPIRE', KEYS[1], toFull + 1)
local retry = 0
if allowed == 0 then retry = math.ceil((1 - tokens) / rate) end
return {allowed, math.floor(tokens), now + toFull, retry, ''}`,
  'fixed-window': `${NOW}
local w = math.floor(now / window)
local s = redis.call('HMGET', KEYS[1], 'a', 't')
local count = 0
if s[1] and tonumber(s[2]) == w then count = tonumber(s[1]) end
local allowed = 0
if count < limit then count = count + 1 allowed = 1 end
local resetAt = (w + 1) * window
redis.call('HSET', KEYS[1], 'a', count, 't', w)
redis.call('PEXPIRE', KEYS[1], resetAt - now)
local retry = 0
if allowed == 0 then retry = resetAt - now end
return {allowed, limit - count, resetAt, retry, tostring(w)}`,
  'sliding-window': `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
local allowed = 0
local ref = ''
if n < limit then
  ref = now .. '-' .. ARGV[3]
  redis.call('ZADD', KEYS[1], now, ref)
  n = n + 1
  allowed = 1
end
local o = now
local nw = now
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if first[2] then o = tonumber(first[2]) end
if last[2] then nw = tonumber(last[2]) end
redis.call('PEXPIRE', KEYS[1], nw + window - now + 1)
local retry = 0
if allowed == 0 then retry = o + window - now end
return {allowed, limit - n, nw + window, retry, ref}`,
  'leaky-bucket': `${NOW}
local rate = limit / window
local s = redis.call('HMGET', KEYS[1], 'a', 't')
local level = 0
if s[1] then level = math.max(0, tonumber(s[1]) - math.max(0, now - tonumber(s[2])) * rate) end
local allowed = 0
if level + 1 <= limit then level = level + 1 allowed = 1 end
local toEmpty = math.ceil(level / rate)
redis.call('HSET', KEYS[1], 'a', tostring(level), 't', now)
redis.call('PEXPIRE', KEYS[1], toEmpty + 1)
local retry = 0
if allowed == 0 then retry = math.ceil((level + 1 - limit) / rate) end
return {allowed, math.floor(limit - level), now + toEmpty, retry, ''}`,
};

const REFUND = `local alg = ARGV[1]
local limit = tonumber(ARGV[2])
local ref = ARGV[3]
if alg == 'sliding-window' then
  redis.call('ZREM', KEYS[1], ref)
  return 1
end
local a = redis.call('HGET', KEYS[1], 'a')
if not a then return 0 end
a = tonumber(a)
if alg == 'token-bucket' then
  redis.call('HSET', KEYS[1], 'a', tostring(math.min(limit, a + 1)))
elseif alg == 'leaky-bucket' then
  redis.call('HSET', KEYS[1], 'a', tostring(math.max(0, a - 1)))
elseif alg == 'fixed-window' then
  if redis.call('HGET', KEYS[1], 't') == ref and a > 0 then redis.call('HINCRBY', KEYS[1], 'a', -1) end
end
return 1`;

const COMMANDS: Record<RateLimitAlgorithm, string> = {
  'token-bucket': 'gwRlTokenBucket',
  'fixed-window': 'gwRlFixedWindow',
  'sliding-window': 'gwRlSlidingWindow',
  'leaky-bucket': 'gwRlLeakyBucket',
};

type ScriptReply = [number, number, number, number, string];
type ScriptCommand = (key: string, ...args: Array<string | number>) => Promise<unknown>;

export interface RedisRateLimitStoreOptions {
  /** Prefix of every key (`gateway:` by default); tests use a unique one. */
  keyPrefix?: string;
  /** How long a request waits for Redis before the local store answers (ms). */
  commandTimeoutMs?: number;
  /** How long the local store answers alone after Redis failed or was slow (ms). */
  backoffMs?: number;
  /** Answers while Redis is unavailable (the in-memory store). */
  fallback: RateLimitStore;
  logger: Logger;
  /** REDIS_TLS_CA_FILE's PEM, for a rediss:// URL. */
  tlsCa?: string;
}

/**
 * Rate-limit counters in Redis, shared by every data plane pointed at the same server: each request
 * is one EVALSHA of its strategy's script. Redis never gets to fail a request: when it is down,
 * or slower than `commandTimeoutMs`, the local store answers (keys are the same strings), and after
 * `backoffMs` Redis is tried again. Commands are never queued while disconnected.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly client: Redis;
  private readonly prefix: string;
  private readonly fallback: RateLimitStore;
  private readonly logger: Logger;
  private readonly backoffMs: number;
  private localUntil = 0;
  private usingRedis = false;
  /** Unique per process: sliding-log entries of different data planes never collide. */
  private readonly member = randomBytes(6).toString('hex');
  private seq = 0;

  constructor(url: string, options: RedisRateLimitStoreOptions) {
    this.prefix = options.keyPrefix ?? 'gateway:';
    this.fallback = options.fallback;
    this.logger = options.logger;
    this.backoffMs = options.backoffMs ?? 1000;
    this.client = new Redis(url, {
      ...redisConnectionOptions(url, options.tlsCa),
      commandTimeout: options.commandTimeoutMs ?? 50,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      retryStrategy: (times) => Math.min(times * 100, 1000),
      lazyConnect: false,
    });
    this.client.on('error', () => undefined);
    this.client.on('ready', () => this.switchTo(true, 'connected'));
    this.client.on('close', () => this.switchTo(false, 'connection closed'));
    for (const algorithm of Object.keys(SCRIPTS) as RateLimitAlgorithm[]) {
      this.client.defineCommand(COMMANDS[algorithm], { numberOfKeys: 1, lua: SCRIPTS[algorithm] });
    }
    this.client.defineCommand('gwRlRefund', { numberOfKeys: 1, lua: REFUND });
  }

  consume(key: string, rule: RateLimitRule): RateLimitDecision | Promise<RateLimitDecision> {
    const fullKey = this.prefix + key;
    if (this.client.status !== 'ready' || (this.localUntil !== 0 && Date.now() < this.localUntil)) return this.fallback.consume(fullKey, rule);
    this.seq = (this.seq + 1) % 1e9;
    return this.run(COMMANDS[rule.algorithm], fullKey, rule.limit, rule.windowMs, `${this.member}.${this.seq}`).then(
      (reply) => {
        this.localUntil = 0;
        const [allowed, remaining, resetAt, retryAfterMs, ref] = reply as ScriptReply;
        return { allowed: allowed === 1, remaining, resetAt, retryAfterMs, ref };
      },
      (error: unknown) => {
        this.degrade(error);
        return this.fallback.consume(fullKey, rule);
      },
    );
  }

  refund(key: string, rule: RateLimitRule, decision: RateLimitDecision): void {
    const fullKey = this.prefix + key;
    if (this.client.status !== 'ready') {
      this.fallback.refund(fullKey, rule, decision);
      return;
    }
    this.run('gwRlRefund', fullKey, rule.algorithm, rule.limit, decision.ref).catch(() => this.fallback.refund(fullKey, rule, decision));
  }

  /** Resolves once connected, or after `ms` (start() never fails for Redis: the local store answers meanwhile). */
  ready(ms: number): Promise<void> {
    if (this.client.status === 'ready') return Promise.resolve();
    return new Promise((resolve) => {
      const client = this.client;
      const logger = this.logger;
      const timer = setTimeout(() => {
        logger.warn({}, 'Redis is not reachable yet: the rate limiter uses the local store until it is');
        done();
      }, ms);
      function done(): void {
        clearTimeout(timer);
        client.off('ready', done);
        resolve();
      }
      client.on('ready', done);
    });
  }

  async close(): Promise<void> {
    this.client.disconnect();
    await this.fallback.close();
  }

  /** A script command defined in the constructor (ioredis adds them as methods; EVALSHA, EVAL on NOSCRIPT). */
  private run(name: string, key: string, ...args: Array<string | number>): Promise<unknown> {
    const commands = this.client as unknown as Record<string, ScriptCommand>;
    return (commands[name] as ScriptCommand).call(this.client, key, ...args);
  }

  private degrade(error: unknown): void {
    this.localUntil = Date.now() + this.backoffMs;
    this.switchTo(false, error instanceof Error ? error.message : String(error));
  }

  private switchTo(redis: boolean, reason: string): void {
    if (this.usingRedis === redis) return;
    this.usingRedis = redis;
    if (redis) this.localUntil = 0;
    if (redis) this.logger.info({ reason }, 'rate limiter uses Redis');
    else this.logger.warn({ reason }, 'rate limiter uses the local store while Redis is unavailable');
  }
}
