import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { TELEMETRY_CHANNEL, type MessageBus } from '@gateway/events';
import { subscribeInBackground, type BackgroundSubscription } from '../common/background-subscription';
import { MESSAGE_BUS } from '../config/config.tokens';
import { ClusterSeries } from './cluster-series';

/** How often an unusable window is logged at most (a flood must not become a flood of lines). */
const INVALID_LOG_INTERVAL_MS = 60_000;

/**
 * Feeds every telemetry window on the bus into this instance's ClusterSeries and seals seconds once
 * a second. Every control-plane instance consumes every window and keeps its own series (issue 12).
 */
@Injectable()
export class TelemetryIngest implements OnModuleInit, OnModuleDestroy {
  readonly series = new ClusterSeries();
  private readonly logger = new Logger('Telemetry');
  private subscription: BackgroundSubscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastInvalidLog = Number.NEGATIVE_INFINITY;

  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  onModuleInit(): void {
    this.subscription = subscribeInBackground(this.bus, TELEMETRY_CHANNEL, (raw) => this.onWindow(raw), this.logger);
    this.timer = setInterval(() => this.series.tick(), 1000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    this.subscription?.close();
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  private onWindow(raw: unknown): void {
    if (this.series.ingest(raw) !== 'invalid') return;
    const now = Date.now();
    if (now - this.lastInvalidLog < INVALID_LOG_INTERVAL_MS) return;
    this.lastInvalidLog = now;
    this.logger.warn(`ignored an unusable telemetry window (${this.series.dropped().invalid} so far): ${this.series.lastInvalid ?? ''}`);
  }
}
