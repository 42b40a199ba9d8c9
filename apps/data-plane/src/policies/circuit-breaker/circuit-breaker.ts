import type { BreakerKind } from '@gateway/events';
import type { Exchange } from '../../engine/exchange';
import type { BreakerStatus } from '../../engine/ports';
import type { BreakerOpenedEvent } from './breaker-events';

export type BreakerState = BreakerStatus['state'];

/** Settings of one breaker, compiled from a route's `circuitBreaker` or an upstream's. */
export interface BreakerSettings {
  readonly kind: BreakerKind;
  /** ms the circuit stays OPEN before test requests pass. */
  readonly openMs: number;
  /** Test requests in flight at once in HALF_OPEN. */
  readonly halfOpenRequests: number;
  /** Successful test requests that close the circuit. */
  readonly successThreshold: number;
  /**
   * Route breakers (variant A): trip when failures reach `thresholdPercent` of at least
   * `volumeThreshold` outcomes within the rolling `windowMs`.
   */
  readonly thresholdPercent: number;
  readonly volumeThreshold: number;
  readonly windowMs: number;
  /** Upstream breakers (spec 8): trip after this many consecutive failures. */
  readonly failureThreshold: number;
}

/** Observer of transitions (the log line, the `circuit_breaker.opened` event); the metrics gauge reads states itself. */
export interface BreakerListener {
  changed(breaker: CircuitBreaker, from: BreakerState, reason: BreakerOpenedEvent['reason']): void;
}

const BUCKETS = 10;

/**
 * One breaker of spec 3.1. CLOSED counts outcomes; reaching the threshold opens it. OPEN rejects
 * until `openMs` passed, then HALF_OPEN lets up to `halfOpenRequests` test requests through at a
 * time: `successThreshold` successes close it, one failure opens it again (the spec leaves that
 * transition open; docs/resilience.md). Time is read lazily on use: no timer per breaker.
 */
export class CircuitBreaker {
  state: BreakerState = 'CLOSED';
  private openedAt = 0;
  /** A held trip (runbook action): OPEN with no HALF_OPEN test before this instant. */
  private heldUntil = 0;
  private lastFailureAt: number | undefined;
  /** Consecutive failures (upstream kind). */
  private consecutiveFailures = 0;
  /** Rolling window (route kind): outcomes per bucket of windowMs / BUCKETS. */
  private readonly totals = new Array<number>(BUCKETS).fill(0);
  private readonly failureCounts = new Array<number>(BUCKETS).fill(0);
  private bucketStart = 0;
  private bucket = 0;
  private halfOpenSuccesses = 0;
  /** Exchanges holding a HALF_OPEN test slot. */
  private readonly trials = new Set<Exchange>();

  constructor(
    readonly name: string,
    public settings: BreakerSettings,
    private readonly listener: BreakerListener,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the exchange may call the upstream; in HALF_OPEN it takes a test slot. */
  admit(exchange: Exchange): boolean {
    if (this.state === 'CLOSED') return true;
    if (this.state === 'OPEN') {
      if (this.openLasts(this.now())) return false;
      this.transition('HALF_OPEN', 'failures');
    }
    if (this.trials.size >= this.settings.halfOpenRequests) return false;
    this.trials.add(exchange);
    return true;
  }

  /** Seconds until OPEN lets a test request through (spec 7.3 `retryAfter`), at least 1. */
  retryAfterSeconds(): number {
    const left = this.state === 'OPEN' ? Math.max(this.openedAt + this.settings.openMs, this.heldUntil) - this.now() : 0;
    return Math.max(1, Math.ceil(left / 1000));
  }

  /** One exchange's outcome: the final answer after retries. */
  record(exchange: Exchange, failed: boolean): void {
    // Outside HALF_OPEN the set is empty: no hash of the exchange is looked up on every request.
    const trial = this.trials.size > 0 && this.trials.delete(exchange);
    const now = this.now();
    if (failed) this.lastFailureAt = now;
    if (this.state === 'HALF_OPEN') {
      if (!trial) return;
      if (failed) {
        this.open(now, 'half-open-failure');
      } else {
        this.halfOpenSuccesses += 1;
        if (this.halfOpenSuccesses >= this.settings.successThreshold) this.close();
      }
      return;
    }
    if (this.state === 'OPEN') return;
    if (this.settings.kind === 'upstream') {
      this.consecutiveFailures = failed ? this.consecutiveFailures + 1 : 0;
      if (this.consecutiveFailures >= this.settings.failureThreshold) this.open(now, 'failures');
      return;
    }
    this.rotate(now);
    this.totals[this.bucket] = (this.totals[this.bucket] as number) + 1;
    if (failed) this.failureCounts[this.bucket] = (this.failureCounts[this.bucket] as number) + 1;
    const { total, failures } = this.windowCounts();
    if (total >= this.settings.volumeThreshold && failures * 100 >= this.settings.thresholdPercent * total) this.open(now, 'failures');
  }

  /** An exchange that ended without an outcome (client left, request refused): frees its test slot. */
  release(exchange: Exchange): void {
    if (this.trials.size > 0) this.trials.delete(exchange);
  }

  /** Manual Trip; with `holdUntilMs` no HALF_OPEN test happens before that instant (a later hold wins). */
  trip(holdUntilMs?: number): void {
    if (holdUntilMs !== undefined) this.heldUntil = Math.max(this.heldUntil, holdUntilMs);
    this.open(this.now(), 'manual');
  }

  reset(): void {
    this.heldUntil = 0;
    this.close();
  }

  /** Whether OPEN still rejects at `now`: its timeout has not run out, or a hold lasts. */
  private openLasts(now: number): boolean {
    return now - this.openedAt < this.settings.openMs || now < this.heldUntil;
  }

  /**
   * The state as an observer should see it: an OPEN whose time is up is HALF_OPEN, as the next
   * request will find it (the transition itself waits for that request: no timer per breaker).
   */
  observedState(): BreakerState {
    return this.state === 'OPEN' && !this.openLasts(this.now()) ? 'HALF_OPEN' : this.state;
  }

  status(): BreakerStatus {
    const state = this.observedState();
    let failures: number;
    let successes: number;
    if (this.state === 'HALF_OPEN') {
      failures = 0;
      successes = this.halfOpenSuccesses;
    } else if (this.settings.kind === 'upstream') {
      failures = this.consecutiveFailures;
      successes = 0;
    } else {
      this.rotate(this.now());
      const counts = this.windowCounts();
      failures = counts.failures;
      successes = counts.total - counts.failures;
    }
    return { state, failures, successes, lastFailureTime: this.lastFailureAt === undefined ? null : new Date(this.lastFailureAt).toISOString() };
  }

  private open(now: number, reason: BreakerOpenedEvent['reason']): void {
    this.openedAt = now;
    this.trials.clear();
    this.halfOpenSuccesses = 0;
    if (this.state !== 'OPEN') this.transition('OPEN', reason);
  }

  private close(): void {
    this.consecutiveFailures = 0;
    this.totals.fill(0);
    this.failureCounts.fill(0);
    this.trials.clear();
    this.halfOpenSuccesses = 0;
    if (this.state !== 'CLOSED') this.transition('CLOSED', 'manual');
  }

  private transition(to: BreakerState, reason: BreakerOpenedEvent['reason']): void {
    const from = this.state;
    this.state = to;
    if (to === 'HALF_OPEN') {
      this.halfOpenSuccesses = 0;
      this.trials.clear();
    }
    this.listener.changed(this, from, reason);
  }

  /** Moves the rolling window to `now`, emptying the buckets that fell out of it. */
  private rotate(now: number): void {
    const width = Math.max(1, Math.floor(this.settings.windowMs / BUCKETS));
    if (this.bucketStart === 0) this.bucketStart = now;
    const steps = Math.floor((now - this.bucketStart) / width);
    if (steps <= 0) return;
    for (let i = 0; i < Math.min(steps, BUCKETS); i += 1) {
      this.bucket = (this.bucket + 1) % BUCKETS;
      this.totals[this.bucket] = 0;
      this.failureCounts[this.bucket] = 0;
    }
    this.bucketStart += steps * width;
  }

  private windowCounts(): { total: number; failures: number } {
    let total = 0;
    let failures = 0;
    for (let i = 0; i < BUCKETS; i += 1) {
      total += this.totals[i] as number;
      failures += this.failureCounts[i] as number;
    }
    return { total, failures };
  }
}
