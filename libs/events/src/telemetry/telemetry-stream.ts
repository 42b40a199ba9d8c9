import type { BreakerState, HealthIndicator } from '../resilience-status.types';
import type { TopKeyWire, TrafficCounts } from './telemetry-window.types';

/** A window may arrive this late after its end and still merge into its second; later ones are dropped (counted). */
export const TELEMETRY_LATE_WINDOW_MS = 5_000;
/** A data plane whose last window is this many windows old is stale. */
export const TELEMETRY_STALE_AFTER_WINDOWS = 3;

/** Latency of merged traffic: quantiles of the merged sketch (within 1 %) and the exact mean, ms. */
export interface LatencySummary {
  p50: number;
  p95: number;
  p99: number;
  meanMs: number;
}

/** Merged counts of a route, an upstream or the whole cluster, with the latency reduced to its summary. */
export interface TrafficSummary extends Omit<TrafficCounts, 'latency'> {
  latency: LatencySummary;
}

export interface RouteSecond extends TrafficSummary {
  routeId: string;
  /** The heaviest client keys of a rate-limited route over every data plane (only in `onSecond`, not in history). */
  topKeys?: TopKeyWire[];
  /** The worst state any data plane reported. */
  breaker?: BreakerState;
  health?: HealthIndicator;
}

export interface UpstreamSecond extends TrafficSummary {
  upstream: string;
  breaker?: BreakerState;
  health?: HealthIndicator;
}

/** One second (or, in rolled-up series, one minute) of the whole cluster: the windows of every data plane that reported it, merged. */
export interface ClusterSecond {
  /** Epoch ms, a multiple of `durationMs`. */
  start: number;
  durationMs: number;
  /** How many data planes' windows were merged. */
  reporting: number;
  total: TrafficSummary;
  routes: RouteSecond[];
  upstreams: UpstreamSecond[];
}

/**
 * What the event layer's detectors read (spec 6.1): the cluster, never one process. The control
 * plane implements it; a detector subscribes and gets each second once no late window can change it.
 */
export interface TelemetryStream {
  /**
   * Calls `listener` with each second once it is sealed (TELEMETRY_LATE_WINDOW_MS after its end),
   * in order, once. Returns a function that removes the listener.
   */
  onSecond(listener: (second: ClusterSecond) => void): () => void;
  /** Sealed seconds with start in [fromMs, toMs), oldest first, from the last 15 minutes kept at 1 s. */
  seconds(fromMs: number, toMs: number): ClusterSecond[];
}
