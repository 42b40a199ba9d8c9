import type { RateLimitDecision, RateLimitRule } from './rate-limit-store';

/**
 * The four strategies of spec 2.3 as pure functions over one key's state. The Redis adapter's Lua
 * scripts are line-for-line ports of these (same state, same arithmetic), so a key means the same
 * thing in both stores. `a` is the strategy's amount (tokens, count or level), `t` its time mark.
 */
export interface CounterState {
  a: number;
  t: number;
  /** sliding-window: epoch ms of the accepted requests still inside the window, ascending. */
  log: number[] | undefined;
  /** Epoch ms after which the state equals "never seen" (memory sweep). */
  expiresAt: number;
}

export function emptyState(): CounterState {
  return { a: 0, t: 0, log: undefined, expiresAt: 0 };
}

/** Runs one request through `rule`, mutating `s` (which is fresh when `s.expiresAt <= now`). */
export function consume(s: CounterState, rule: RateLimitRule, now: number): RateLimitDecision {
  const fresh = s.expiresAt <= now;
  switch (rule.algorithm) {
    case 'token-bucket':
      return tokenBucket(s, rule, now, fresh);
    case 'fixed-window':
      return fixedWindow(s, rule, now, fresh);
    case 'sliding-window':
      return slidingWindow(s, rule, now, fresh);
    case 'leaky-bucket':
      return leakyBucket(s, rule, now, fresh);
  }
}

/** Starts full with `limit` tokens; refills `limit` per `windowMs`, continuously. */
function tokenBucket(s: CounterState, { limit, windowMs }: RateLimitRule, now: number, fresh: boolean): RateLimitDecision {
  const rate = limit / windowMs;
  let tokens = fresh ? limit : Math.min(limit, s.a + Math.max(0, now - s.t) * rate);
  const allowed = tokens >= 1;
  if (allowed) tokens -= 1;
  s.a = tokens;
  s.t = now;
  const toFull = Math.ceil((limit - tokens) / rate);
  s.expiresAt = now + toFull + 1;
  return { allowed, remaining: Math.floor(tokens), resetAt: now + toFull, retryAfterMs: allowed ? 0 : Math.ceil((1 - tokens) / rate), ref: '' };
}

/** `limit` requests per aligned window `[k·windowMs, (k+1)·windowMs)`. */
function fixedWindow(s: CounterState, { limit, windowMs }: RateLimitRule, now: number, fresh: boolean): RateLimitDecision {
  const window = Math.floor(now / windowMs);
  if (fresh || s.t !== window) {
    s.a = 0;
    s.t = window;
  }
  const allowed = s.a < limit;
  if (allowed) s.a += 1;
  const resetAt = (window + 1) * windowMs;
  s.expiresAt = resetAt;
  return { allowed, remaining: limit - s.a, resetAt, retryAfterMs: allowed ? 0 : resetAt - now, ref: String(window) };
}

/** Exact sliding log: at most `limit` accepted requests in any `windowMs` span ending now. */
function slidingWindow(s: CounterState, { limit, windowMs }: RateLimitRule, now: number, fresh: boolean): RateLimitDecision {
  const log = fresh || s.log === undefined ? [] : s.log;
  let drop = 0;
  while (drop < log.length && (log[drop] as number) <= now - windowMs) drop += 1;
  if (drop > 0) log.splice(0, drop);
  const allowed = log.length < limit;
  if (allowed) log.push(now);
  s.log = log;
  const oldest = log.length > 0 ? (log[0] as number) : now;
  const newest = log.length > 0 ? (log[log.length - 1] as number) : now;
  s.expiresAt = newest + windowMs;
  return {
    allowed,
    remaining: limit - log.length,
    resetAt: newest + windowMs,
    retryAfterMs: allowed ? 0 : oldest + windowMs - now,
    ref: allowed ? String(now) : '',
  };
}

/** A meter that drains `limit` per `windowMs`; a request fits while the level stays <= limit. */
function leakyBucket(s: CounterState, { limit, windowMs }: RateLimitRule, now: number, fresh: boolean): RateLimitDecision {
  const rate = limit / windowMs;
  let level = fresh ? 0 : Math.max(0, s.a - Math.max(0, now - s.t) * rate);
  const allowed = level + 1 <= limit;
  if (allowed) level += 1;
  s.a = level;
  s.t = now;
  const toEmpty = Math.ceil(level / rate);
  s.expiresAt = now + toEmpty + 1;
  return { allowed, remaining: Math.floor(limit - level), resetAt: now + toEmpty, retryAfterMs: allowed ? 0 : Math.ceil((level + 1 - limit) / rate), ref: '' };
}

/** Gives back one request `consume` accepted (skipSuccessfulRequests / skipFailedRequests). */
export function refund(s: CounterState, rule: RateLimitRule, decision: RateLimitDecision): void {
  switch (rule.algorithm) {
    case 'token-bucket':
      s.a = Math.min(rule.limit, s.a + 1);
      return;
    case 'leaky-bucket':
      s.a = Math.max(0, s.a - 1);
      return;
    case 'fixed-window':
      if (String(s.t) === decision.ref && s.a > 0) s.a -= 1;
      return;
    case 'sliding-window': {
      const at = Number(decision.ref);
      const index = s.log === undefined ? -1 : s.log.lastIndexOf(at);
      if (index >= 0) (s.log as number[]).splice(index, 1);
      return;
    }
  }
}
