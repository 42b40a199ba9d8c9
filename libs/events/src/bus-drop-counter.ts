/** Why a bus message was not delivered to any listener (the `reason` label of gateway_bus_messages_dropped_total). */
export const BUS_DROP_REASONS = ['malformed', 'too_large', 'unsigned', 'unknown_key', 'forged', 'wrong_channel', 'stale', 'replayed'] as const;
export type BusDropReason = (typeof BUS_DROP_REASONS)[number];

/** The Prometheus counter both planes expose from `BusDropCounter.counts()`. */
export const BUS_DROPS_METRIC = {
  name: 'gateway_bus_messages_dropped_total',
  help: 'Bus messages dropped before any listener saw them (unsigned, forged, replayed, stale, malformed...), by reason',
} as const;

export interface BusDropLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface BusDropCounterOptions {
  logger?: BusDropLogger;
  /** At most one summary line per interval, ms. Default 60 000. */
  summaryIntervalMs?: number;
  now?: () => number;
}

/** JSON lines on stderr, for a bus built without a logger. */
export const stderrBusLogger: BusDropLogger = {
  warn: (message, fields) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg: message, component: 'signed-bus', ...fields })}\n`),
};

/**
 * Counts dropped bus messages by reason and logs a summary at most once per interval: whoever can
 * publish to Redis can send a million forged messages, and a log line each would be a second attack.
 * The first drop after a quiet interval is logged at once, the rest in the next summary.
 */
export class BusDropCounter {
  private readonly totals = Object.fromEntries(BUS_DROP_REASONS.map((r) => [r, 0])) as Record<BusDropReason, number>;
  private pending: Partial<Record<BusDropReason, number>> = {};
  private pendingCount = 0;
  private lastSummaryAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private lastChannel = '';
  private readonly logger: BusDropLogger;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(options: BusDropCounterOptions = {}) {
    this.logger = options.logger ?? stderrBusLogger;
    this.intervalMs = options.summaryIntervalMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  record(reason: BusDropReason, channel: string): void {
    this.totals[reason] += 1;
    this.pending[reason] = (this.pending[reason] ?? 0) + 1;
    this.pendingCount += 1;
    this.lastChannel = channel;
    const dueAt = this.lastSummaryAt + this.intervalMs;
    if (this.now() >= dueAt) this.summarize();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.summarize(), dueAt - this.now());
      this.timer.unref();
    }
  }

  /** Every drop since start, by reason (every reason present, 0 when none). */
  counts(): Readonly<Record<BusDropReason, number>> {
    return { ...this.totals };
  }

  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private summarize(): void {
    this.close();
    if (this.pendingCount === 0) return;
    this.lastSummaryAt = this.now();
    this.logger.warn(`dropped ${this.pendingCount} bus message(s) that failed authentication or were malformed`, {
      reasons: this.pending,
      lastChannel: this.lastChannel,
      nextSummaryInSeconds: Math.round(this.intervalMs / 1000),
    });
    this.pending = {};
    this.pendingCount = 0;
  }
}
