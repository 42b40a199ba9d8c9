import type { RateLimitDecision, RateLimitRule, RateLimitStore } from './rate-limit-store';
import { consume, emptyState, refund, type CounterState } from './rate-limit-algorithms';

export interface MemoryStoreOptions {
  /** Keys kept at most; beyond it the least recently inserted key is forgotten. */
  maxKeys?: number;
  /** How often expired keys are swept (ms). */
  sweepIntervalMs?: number;
  /** Clock (epoch ms); tests pass a fake one. */
  now?: () => number;
}

/**
 * Rate-limit counters in this process: the default store, and the Redis adapter's fallback. Bounded
 * (`maxKeys`) and swept, so a flood of distinct client keys cannot grow the heap without limit.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly entries = new Map<string, CounterState>();
  private readonly maxKeys: number;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;
  private lastSweep = 0;

  constructor(options: MemoryStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 100_000;
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 10_000);
    this.sweeper.unref();
  }

  get size(): number {
    return this.entries.size;
  }

  consume(key: string, rule: RateLimitRule): RateLimitDecision {
    let state = this.entries.get(key);
    if (state === undefined) {
      if (this.entries.size >= this.maxKeys) this.evictOldest();
      state = emptyState();
      this.entries.set(key, state);
    }
    return consume(state, rule, this.now());
  }

  refund(key: string, rule: RateLimitRule, decision: RateLimitDecision): void {
    const state = this.entries.get(key);
    if (state !== undefined) refund(state, rule, decision);
  }

  /** Forgets keys whose state is back to "never seen". */
  sweep(): void {
    const now = this.now();
    this.lastSweep = now;
    for (const [key, state] of this.entries) if (state.expiresAt <= now) this.entries.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.entries.clear();
  }

  private evictOldest(): void {
    // At most one full sweep per second: a flood of new keys must not make every insert O(n).
    if (this.now() - this.lastSweep >= 1000) {
      this.sweep();
      if (this.entries.size < this.maxKeys) return;
    }
    const oldest = this.entries.keys().next();
    if (oldest.done !== true) this.entries.delete(oldest.value);
  }
}
