import type { Logger } from '@nestjs/common';
import { holdLeaseWhile, type LeaseTerms } from './lease-renewal';
import type { Lease, LeaseGrant } from './lease.service';

export interface LeasedIntervalOptions extends Omit<LeaseTerms, 'renewMs'> {
  /** How often every instance takes or renews the lease; a third of `ttlMs` unless set. */
  readonly renewMs?: number;
  /** How often the holder runs the job. */
  readonly intervalMs: number;
  /** The job; `grant` is the lease it runs under, for fenced writes. */
  readonly job: (grant: LeaseGrant) => Promise<void>;
}

/**
 * A periodic job that runs on one control-plane instance only: the holder of the lease. Every
 * instance tries to take or renew the lease every `renewMs`; the holder runs the job at once and
 * then every `intervalMs`, renewing during the job too. When the holder dies (or stops renewing)
 * its lease expires after `ttlMs` and another instance takes it and runs the job at once, so a
 * handover can run the job twice within one interval: jobs must be idempotent (a purge or prune is).
 */
export class LeasedInterval {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private grant: LeaseGrant | undefined;
  /** When this instance last started the job; reset on losing the lease so a regained lease runs at once. */
  private lastRunAt = Number.NEGATIVE_INFINITY;
  private readonly terms: LeaseTerms;

  constructor(
    private readonly lease: Lease,
    private readonly options: LeasedIntervalOptions,
    private readonly logger: Logger,
  ) {
    this.terms = { name: options.name, ttlMs: options.ttlMs, renewMs: options.renewMs ?? Math.ceil(options.ttlMs / 3) };
  }

  /** Whether this instance held the lease at its last attempt. */
  get holding(): boolean {
    return this.grant !== undefined;
  }

  /**
   * Tries for the lease at once and runs the job if it took it (the returned promise waits for
   * that first attempt, so a job that must run on start has run once the caller goes on), then
   * tries again every `renewMs`. Never rejects: failures are logged and tried again.
   */
  start(): Promise<void> {
    return this.attempt();
  }

  /** Stops the timer, waits for a running job and releases the lease so another instance takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    const grant = this.grant;
    this.grant = undefined;
    if (grant !== undefined) await this.lease.release(grant).catch(() => undefined);
  }

  private attempt(): Promise<void> {
    const attempt = this.tick()
      .catch((error: unknown) => this.logger.warn(`${this.options.name}: ${(error as Error).message}`))
      .finally(() => {
        this.running = undefined;
        this.scheduleNext();
      });
    this.running = attempt;
    return attempt;
  }

  private scheduleNext(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.attempt(), this.terms.renewMs);
    // Never keeps the process alive on its own.
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.grant = await this.lease.acquire(this.options.name, this.options.ttlMs).catch((error: unknown) => {
      this.grant = undefined;
      throw error;
    });
    if (this.grant === undefined) {
      this.lastRunAt = Number.NEGATIVE_INFINITY;
      return;
    }
    if (Date.now() - this.lastRunAt < this.options.intervalMs) return;
    this.lastRunAt = Date.now();
    await holdLeaseWhile(
      this.lease,
      this.terms,
      this.options.job(this.grant),
      (grant) => (this.grant = grant),
      (error) => this.logger.warn(`cannot renew the ${this.options.name} lease: ${error.message}`),
    );
  }
}
