import { durationMs } from './event-settings.types';
import type { Detector, Signal } from './detector';
import { isNumberArray, isRecord, pushBounded, restoreRecord, TREND_POINTS } from './detector-state';
import { binomialUpperTail, round, trendOf } from './stats';

/** Per route: the window's evaluations as flat `[start, requests, errors, ...]`, and the latest windowed rates. */
interface RouteErrors {
  counts: number[];
  rates: number[];
}

export interface ErrorRateState {
  routes: Record<string, RouteErrors>;
}

const isRouteErrors = (value: unknown): value is RouteErrors => isRecord(value) && isNumberArray(value['counts']) && isNumberArray(value['rates']);

/**
 * ERROR_RATE_SPIKE: the share of a route's requests answered 5xx over `window` is above
 * `threshold` percent, with at least `minSamples` requests; CRITICAL at three times the threshold.
 * confidence = 1 - P(Binomial(n, threshold) >= k): how unlikely k errors in n requests would be if
 * the route's true error rate were exactly the threshold. It fires only from `minConfidence`, so a
 * few errors on a quiet route stay quiet.
 */
export const errorRateSpikeDetector: Detector<ErrorRateState> = {
  kind: 'ERROR_RATE_SPIKE',
  initialState: () => ({ routes: {} }),
  restoreState(stored) {
    const routes = isRecord(stored) ? restoreRecord(stored['routes'], isRouteErrors) : undefined;
    return routes === undefined ? undefined : { routes };
  },
  evaluate(tick, state, context) {
    for (const route of tick.routes) {
      const entry = (state.routes[route.routeId] ??= { counts: [], rates: [] });
      entry.counts.push(tick.start, route.requests, route.errors);
    }
    const signals: Signal[] = [];
    for (const [routeId, entry] of Object.entries(state.routes)) {
      const settings = context.resolver.route(routeId).errorRate;
      const from = tick.start + tick.durationMs - durationMs(settings.window, 300_000);
      let drop = 0;
      while (drop < entry.counts.length && (entry.counts[drop] as number) < from) drop += 3;
      if (drop > 0) entry.counts.splice(0, drop);
      if (entry.counts.length === 0) {
        delete state.routes[routeId];
        signals.push({ fingerprint: `ERROR_RATE_SPIKE:route:${routeId}`, routeId, ratio: 0 });
        continue;
      }
      let n = 0;
      let k = 0;
      for (let i = 0; i < entry.counts.length; i += 3) {
        n += entry.counts[i + 1] as number;
        k += entry.counts[i + 2] as number;
      }
      const rate = n > 0 ? (100 * k) / n : 0;
      pushBounded(entry.rates, rate, TREND_POINTS);
      const ratio = rate / settings.threshold;
      const signal: Signal = { fingerprint: `ERROR_RATE_SPIKE:route:${routeId}`, routeId, ratio };
      if (n >= settings.minSamples && rate > settings.threshold) {
        const confidence = errorRateConfidence(n, k, settings.threshold);
        if (confidence >= settings.minConfidence) {
          signal.event = {
            type: 'ERROR_RATE_SPIKE',
            severity: rate >= 3 * settings.threshold ? 'CRITICAL' : 'WARNING',
            summary: `Route ${routeId}: ${round(rate, 1)} % of ${n} requests failed (5xx) over ${settings.window}, threshold ${settings.threshold} %`,
            confidence: round(confidence),
            data: { current_value: round(rate, 2), threshold: settings.threshold, breach_ratio: round(ratio, 3), trend: trendOf(entry.rates) },
            context: { route: routeId, window: settings.window, requests: n, errors: k },
          };
        }
      }
      signals.push(signal);
    }
    return signals;
  },
};

/** 1 - P(Binomial(n, threshold%) >= k). */
export function errorRateConfidence(n: number, k: number, thresholdPercent: number): number {
  return 1 - binomialUpperTail(n, thresholdPercent / 100, k);
}
