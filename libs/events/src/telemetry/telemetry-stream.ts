import type { RouteWindow, TrafficCounts, UpstreamWindow } from './telemetry-window.types';

/** A window may arrive this late after its end and still merge into its second; later ones are dropped (counted). */
export const TELEMETRY_LATE_WINDOW_MS = 5_000;
/** A data plane whose last window is this many windows old is stale. */
export const TELEMETRY_STALE_AFTER_WINDOWS = 3;

/** One second of the whole cluster: the windows of every data plane that reported it, merged. */
export interface ClusterSecond {
  /** Epoch ms, a multiple of `durationMs`. */
  start: number;
  durationMs: number;
  /** Instance ids of the data planes whose window of this second was merged. */
  instances: string[];
  total: TrafficCounts;
  routes: RouteWindow[];
  upstreams: UpstreamWindow[];
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
