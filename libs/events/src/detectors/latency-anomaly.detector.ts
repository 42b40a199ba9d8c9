import type { Detector, Signal } from './detector';
import { isNumberArray, isRecord, pushBounded, restoreRecord, TREND_POINTS } from './detector-state';
import type { LatencySettings } from './event-settings.types';
import { MAD_TO_SIGMA, median, medianAbsoluteDeviation, normalCdf, robustZ, round, trendOf } from './stats';

const MINUTE_MS = 60_000;
/** The baseline: the route's per-minute quantile over the last 24 hours. */
export const LATENCY_BASELINE_MINUTES = 1440;
/** Minutes of history before the detector judges a route (a new route is not anomalous by itself). */
export const LATENCY_MIN_BASELINE_MINUTES = 30;

/** Per route. `minute` = [start, sum of quantile x requests, requests] of the minute being filled. */
interface RouteLatency {
  minutes: number[];
  minute: number[];
  /** [median, MAD] of `minutes`, recomputed when a minute closes. */
  base: number[];
  streak: number;
  recent: number[];
}

export interface LatencyState {
  routes: Record<string, RouteLatency>;
}

const isRouteLatency = (value: unknown): value is RouteLatency =>
  isRecord(value) && isNumberArray(value['minutes']) && isNumberArray(value['minute']) && isNumberArray(value['base']) && typeof value['streak'] === 'number' && isNumberArray(value['recent']);

/** The level a quantile must pass: z-score, ratio and absolute floor all at once. */
export function latencyTrigger(centre: number, mad: number, settings: LatencySettings): number {
  return Math.max(centre + settings.zThreshold * Math.max(MAD_TO_SIGMA * mad, zFloor(centre)), settings.minRatio * centre, centre + settings.minDeltaMs);
}

/** A flat history (MAD 0) must not make every millisecond a sigma: at least 1 ms or 5 % of the median. */
function zFloor(centre: number): number {
  return Math.max(1, 0.05 * centre);
}

/** Φ(z - zThreshold): 0.5 at the threshold, towards 1 as the quantile leaves the route's normal. */
export function latencyConfidence(z: number, zThreshold: number): number {
  return normalCdf(z - zThreshold);
}

/**
 * LATENCY_ANOMALY: a route's p95 (or p99) far above its own normal, the median and MAD of its
 * per-minute quantile over the last 24 hours: robust z >= `zThreshold`, at least `minRatio` times
 * the median and `minDeltaMs` above it, in `persistence` consecutive evaluations with at least
 * `minSamples` requests. Breaching evaluations do not enter the baseline, so a long incident does
 * not become the normal. confidence = Φ(z - zThreshold), the normal distribution at how far the
 * robust z-score is past its threshold.
 */
export const latencyAnomalyDetector: Detector<LatencyState> = {
  kind: 'LATENCY_ANOMALY',
  initialState: () => ({ routes: {} }),
  restoreState(stored) {
    const routes = isRecord(stored) ? restoreRecord(stored['routes'], isRouteLatency) : undefined;
    return routes === undefined ? undefined : { routes };
  },
  evaluate(tick, state, context) {
    const signals: Signal[] = [];
    const minuteStart = Math.floor(tick.start / MINUTE_MS) * MINUTE_MS;
    for (const route of tick.routes) {
      const settings = context.resolver.route(route.routeId).latency;
      const entry = (state.routes[route.routeId] ??= { minutes: [], minute: [minuteStart, 0, 0], base: [], streak: 0, recent: [] });
      closeMinute(entry, minuteStart);
      const fingerprint = `LATENCY_ANOMALY:route:${route.routeId}`;
      if (route.requests < settings.minSamples) {
        entry.streak = 0;
        signals.push({ fingerprint, routeId: route.routeId, ratio: 0 });
        continue;
      }
      const value = route[settings.quantile];
      pushBounded(entry.recent, value, TREND_POINTS);
      if (entry.minutes.length < LATENCY_MIN_BASELINE_MINUTES || entry.base.length < 2) {
        addToMinute(entry, value, route.requests);
        signals.push({ fingerprint, routeId: route.routeId, ratio: 0 });
        continue;
      }
      const [centre, mad] = entry.base as [number, number];
      const trigger = latencyTrigger(centre, mad, settings);
      const ratio = value / trigger;
      const breach = value >= trigger;
      entry.streak = breach ? entry.streak + 1 : 0;
      if (!breach) addToMinute(entry, value, route.requests);
      const signal: Signal = { fingerprint, routeId: route.routeId, ratio };
      if (entry.streak >= settings.persistence) {
        const z = robustZ(value, centre, mad, zFloor(centre));
        signal.event = {
          type: 'LATENCY_ANOMALY',
          severity: ratio >= 2 ? 'CRITICAL' : 'WARNING',
          summary: `Route ${route.routeId}: ${settings.quantile} ${round(value, 1)} ms, its normal is ${round(centre, 1)} ms (robust z ${round(z, 1)})`,
          confidence: round(latencyConfidence(z, settings.zThreshold)),
          data: { current_value: round(value, 2), threshold: round(trigger, 2), breach_ratio: round(ratio, 3), trend: trendOf(entry.recent) },
          context: { route: route.routeId, quantile: settings.quantile, baseline_median_ms: round(centre, 2), baseline_mad_ms: round(mad, 2), robust_z: round(z, 2), requests: route.requests },
        };
      }
      signals.push(signal);
    }
    // A route without traffic for a whole baseline is forgotten (its state would grow without bound).
    for (const [routeId, entry] of Object.entries(state.routes)) if ((entry.minute[0] as number) < tick.start - LATENCY_BASELINE_MINUTES * MINUTE_MS) delete state.routes[routeId];
    return signals;
  },
};

function addToMinute(entry: RouteLatency, value: number, requests: number): void {
  entry.minute[1] = (entry.minute[1] as number) + value * requests;
  entry.minute[2] = (entry.minute[2] as number) + requests;
}

function closeMinute(entry: RouteLatency, minuteStart: number): void {
  if (entry.minute[0] === minuteStart) return;
  const requests = entry.minute[2] as number;
  if (requests > 0) {
    pushBounded(entry.minutes, round((entry.minute[1] as number) / requests, 3), LATENCY_BASELINE_MINUTES);
    const centre = median(entry.minutes);
    entry.base = [centre, medianAbsoluteDeviation(entry.minutes, centre)];
  }
  entry.minute = [minuteStart, 0, 0];
}
