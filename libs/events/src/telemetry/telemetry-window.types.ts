/*
 * The telemetry window: what each data plane publishes once a second on TELEMETRY_CHANNEL and what
 * the control plane merges into the cluster series (docs/telemetry.md). Counts are tuples in the
 * order of the constants below, and only routes and upstreams that had traffic are listed.
 */
import type { BreakerState, HealthIndicator } from '../resilience-status.types';

/** Bus channel of the windows. */
export const TELEMETRY_CHANNEL = 'gateway:telemetry';

/** Status classes counted, in the order of `TrafficCounts.statusClasses`. */
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** Gateway outcomes counted, in the order of `TrafficCounts.outcomes` (issue 12). */
export const REQUEST_OUTCOMES = ['proxied', 'rate_limited', 'breaker_rejected', 'auth_refused', 'cache_hit', 'upstream_error', 'timeout'] as const;
export type RequestOutcome = (typeof REQUEST_OUTCOMES)[number];

/**
 * A latency sketch in sparse form (LatencySketch in this folder): only its non-zero buckets, as
 * `[gap, count, gap, count, ...]` where each bucket index is the previous one (0 at first) plus its
 * gap, so indexes ascend (on the bus these become runs, telemetry-wire.types.ts). Bucket `i` holds the latencies in
 * (MIN·γ^(i-1), MIN·γ^i] ms of the fixed log scale shared by every process, so sketches merge by
 * adding counts.
 */
export interface LatencySketchWire {
  /** Observations, including those in `zero`. */
  count: number;
  /** Sum of the observed latencies, ms (for the mean). */
  sumMs: number;
  /** Observations at or below the smallest tracked latency. */
  zero: number;
  buckets: number[];
}

/** One of the heaviest client keys of a rate-limited route (Space-Saving, TopKeys in this folder). */
export interface TopKeyWire {
  /** The limiter's scope key (`ip:203.0.113.7`, `key:<digest>`...); never a raw credential. */
  key: string;
  /** Requests counted for the key (an overestimate by at most `error`). */
  count: number;
  /** Of `count`, answered 429 (same bound). */
  rejections: number;
  /** The count the key may have inherited from the key it evicted (Space-Saving's guarantee). */
  error: number;
}

/** Traffic of one route or upstream in one window. */
export interface TrafficCounts {
  requests: number;
  /** By STATUS_CLASSES order. */
  statusClasses: [number, number, number, number];
  /** By REQUEST_OUTCOMES order. */
  outcomes: [number, number, number, number, number, number, number];
  retries: number;
  bytesIn: number;
  bytesOut: number;
  latency: LatencySketchWire;
}

export interface RouteWindow extends TrafficCounts {
  routeId: string;
  /** Heaviest keys, only on routes with a rate limit. */
  topKeys?: TopKeyWire[];
  /** The route's own breaker, when it has one. */
  breaker?: BreakerState;
  /** The route's active health check, when it has one. */
  health?: HealthIndicator;
}

export interface UpstreamWindow extends TrafficCounts {
  /** The proxy.yml upstream name, or the route's target origin when it has none. */
  upstream: string;
  breaker?: BreakerState;
  health?: HealthIndicator;
}

/** Process gauges sampled when the window closes. */
export interface ProcessGauges {
  heapUsedBytes: number;
  rssBytes: number;
  /** Event-loop delay over the window (p99 of perf_hooks' histogram), ms. */
  eventLoopLagMs: number;
  openConnections: number;
}

/**
 * One data plane's window, as the data plane builds it and the control plane reads it; on the bus
 * it travels in the compact TelemetryWire form (telemetry-wire.types.ts). Keyed by (instanceId,
 * start) on the receiving side.
 */
export interface TelemetryWindow {
  instanceId: string;
  /** Epoch ms of the window's start, a multiple of `durationMs`. */
  start: number;
  durationMs: number;
  /** Where the data plane listens (`host:port`), its version and config revision (GET /api/monitoring/data-planes). */
  address: string;
  version: string;
  configRevision: number;
  /** Windows this data plane dropped since it started because publishing failed or was slow. */
  droppedWindows: number;
  /** Only routes that had traffic in the window. */
  routes: RouteWindow[];
  /** Only upstreams that had traffic in the window. */
  upstreams: UpstreamWindow[];
  process: ProcessGauges;
}
