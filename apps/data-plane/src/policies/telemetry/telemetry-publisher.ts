import {
  encodeTelemetryWindow,
  TELEMETRY_CHANNEL,
  type BreakerState,
  type BreakerStatus,
  type HealthCheckStatus,
  type HealthIndicator,
  type MessageBus,
  type TelemetryWindow,
} from '@gateway/events';
import type { Logger } from '../../engine/ports';
import type { ProcessGaugeSampler } from './process-gauges';
import type { TelemetryRegistry } from './telemetry-registry';

/** What a window says besides traffic: who sends it and the resilience state of its routes and upstreams. */
export interface TelemetrySources {
  instanceId: string;
  version: string;
  address(): string;
  configRevision(): number;
  /** Heaviest keys of the window of a rate-limited route (RateLimitUsageRegistry.takeWindowKeys). */
  takeTopKeys(routeId: string): TelemetryWindow['routes'][number]['topKeys'];
  routeBreaker(routeId: string): BreakerState | undefined;
  routeHealth(routeId: string): HealthIndicator | undefined;
  /** Every breaker by name (upstream names; `route:<id>` for routes' own), read once a window. */
  breakers(): Record<string, BreakerStatus>;
  /** Every active health check by name (upstream names; `route:<id>`), read once a window. */
  healthChecks(): Record<string, HealthCheckStatus>;
}

export interface TelemetryPublisherDeps {
  bus: MessageBus;
  registry: TelemetryRegistry;
  gauges: ProcessGaugeSampler;
  sources: TelemetrySources;
  logger: Logger;
  /** Default 1000: the contract the control plane keys its seconds by. */
  windowMs?: number;
  now?: () => number;
}

/**
 * Closes a window at every second boundary and publishes it. At most one publish is in flight: a
 * window that finds the previous one still pending (a slow or absent Redis) is dropped and counted,
 * as is one whose publish fails, so the data plane never blocks and never buffers without bound.
 */
export class TelemetryPublisher {
  private timer: NodeJS.Timeout | undefined;
  private inFlight = false;
  private closed = false;
  /** Windows dropped since start (sent in every window, and read by tests). */
  dropped = 0;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(private readonly deps: TelemetryPublisherDeps) {
    this.windowMs = deps.windowMs ?? 1000;
    this.now = deps.now ?? Date.now;
  }

  start(): void {
    this.schedule();
  }

  /** Closes the window that ends at `end` (epoch ms, a window boundary) and publishes it. */
  flush(end: number): void {
    const window = this.build(end - this.windowMs);
    if (this.inFlight) {
      this.dropped += 1;
      return;
    }
    this.inFlight = true;
    this.deps.bus.publish(TELEMETRY_CHANNEL, encodeTelemetryWindow(window)).then(
      () => {
        this.inFlight = false;
      },
      (error: unknown) => {
        this.inFlight = false;
        this.dropped += 1;
        this.deps.logger.warn({ channel: TELEMETRY_CHANNEL, err: String(error), droppedWindows: this.dropped }, 'telemetry window dropped');
      },
    );
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.deps.gauges.close();
  }

  /**
   * Aligned on the wall clock's seconds, so every data plane's window of one second has one start.
   * The window is named by the boundary it was planned for, not by the clock when the timer fires:
   * a timer fires a millisecond early or late, and must not name two windows alike. After a stall
   * longer than a window, the next window carries the stalled seconds' traffic.
   */
  private schedule(after?: number): void {
    if (this.closed) return;
    const now = this.now();
    let boundary = (Math.floor(now / this.windowMs) + 1) * this.windowMs;
    if (after !== undefined && boundary <= after) boundary = after + this.windowMs;
    this.timer = setTimeout(() => {
      this.flush(boundary);
      this.schedule(boundary);
    }, boundary - now);
    this.timer.unref();
  }

  private build(start: number): TelemetryWindow {
    const { registry, sources } = this.deps;
    const { routes, upstreams } = registry.take();
    for (const route of routes) {
      const topKeys = sources.takeTopKeys(route.routeId);
      if (topKeys !== undefined) route.topKeys = topKeys;
      const breaker = sources.routeBreaker(route.routeId);
      if (breaker !== undefined) route.breaker = breaker;
      const health = sources.routeHealth(route.routeId);
      if (health !== undefined) route.health = health;
    }
    if (upstreams.length > 0) {
      const breakers = sources.breakers();
      const checks = sources.healthChecks();
      for (const upstream of upstreams) {
        const breaker = breakers[upstream.upstream]?.state;
        if (breaker !== undefined) upstream.breaker = breaker;
        const health = checks[upstream.upstream]?.status;
        if (health !== undefined) upstream.health = health;
      }
    }
    return {
      instanceId: sources.instanceId,
      start,
      durationMs: this.windowMs,
      address: sources.address(),
      version: sources.version,
      configRevision: sources.configRevision(),
      droppedWindows: this.dropped,
      routes,
      upstreams,
      process: this.deps.gauges.sample(),
    };
  }
}
