import type { CounterDefinition } from '../../engine/ports';
import { serviceKey } from '../../engine/service-registry';

/** Spec 2.3 strategies; the wire values of the route model. */
export type RateLimitAlgorithm = 'token-bucket' | 'fixed-window' | 'sliding-window' | 'leaky-bucket';

/** A compiled rate-limit rule: what one key may do. */
export interface RateLimitRule {
  readonly algorithm: RateLimitAlgorithm;
  readonly limit: number;
  readonly windowMs: number;
}

/** The outcome of counting one request against a key. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Requests still allowed right now (0 when rejected). */
  remaining: number;
  /** Epoch ms at which the key is back to its full allowance. */
  resetAt: number;
  /** ms until a request would be allowed again (0 when allowed). */
  retryAfterMs: number;
  /** Opaque handle for `refund` (window id, log entry). */
  ref: string;
}

/**
 * Where rate-limit counters live: in process by default, Redis when configured (an adapter). One
 * atomic operation per request and strategy; a synchronous answer costs no promise.
 */
export interface RateLimitStore {
  consume(key: string, rule: RateLimitRule): RateLimitDecision | Promise<RateLimitDecision>;
  /** Gives back what `consume` took (skipSuccessfulRequests / skipFailedRequests); best effort. */
  refund(key: string, rule: RateLimitRule, decision: RateLimitDecision): void;
  close(): Promise<void>;
}

/** Rate-limit counters (memory, or Redis through an adapter). */
export const RATE_LIMIT_STORE = serviceKey<RateLimitStore>('rateLimit.store');

export const RATE_LIMIT_HITS: CounterDefinition = {
  name: 'gateway_rate_limit_hits_total',
  help: 'Requests rejected by a route rate limit, by route id',
  labelNames: ['route'],
};
