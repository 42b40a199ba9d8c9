import type { Logger } from '../../engine/ports';

export interface RefusalLogSettings {
  /** Refusals logged one by one per interval; the rest are summed up in one line. */
  readonly linesPerInterval: number;
  readonly intervalMs: number;
}

export const REFUSAL_LOG_DEFAULTS: RefusalLogSettings = { linesPerInterval: 10, intervalMs: 10_000 };

/**
 * Sampled log of authentication refusals: the first `linesPerInterval` of each interval in full,
 * then one summary line per interval with how many more there were, by reason. A flood must not
 * cost a log line (and a disk write) per request; gateway_auth_failures_total counts every one.
 */
export class RefusalLog {
  private intervalEnd = 0;
  private logged = 0;
  private suppressed = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly settings: RefusalLogSettings = REFUSAL_LOG_DEFAULTS,
    private readonly now: () => number = Date.now,
  ) {}

  refused(reason: string, fields: Record<string, unknown>): void {
    const now = this.now();
    if (now >= this.intervalEnd) {
      this.flush();
      this.intervalEnd = now + this.settings.intervalMs;
      this.logged = 0;
    }
    if (this.logged < this.settings.linesPerInterval) {
      this.logged += 1;
      this.logger.warn({ ...fields, reason }, 'authentication refused');
      return;
    }
    this.suppressed.set(reason, (this.suppressed.get(reason) ?? 0) + 1);
    // The summary must come even if the flood stops: a timer to the end of the interval.
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.intervalEnd - now);
      this.timer.unref();
    }
  }

  /** Writes the summary of refusals not logged one by one, if any. */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.suppressed.size === 0) return;
    let total = 0;
    for (const count of this.suppressed.values()) total += count;
    this.logger.warn(
      { notLogged: total, byReason: Object.fromEntries(this.suppressed), intervalSeconds: this.settings.intervalMs / 1000 },
      'more authentication refusals than are logged one by one (all are counted in gateway_auth_failures_total)',
    );
    this.suppressed = new Map();
  }

  close(): void {
    this.flush();
  }
}
