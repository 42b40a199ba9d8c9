import type { Detector, Signal } from './detector';
import { isNumberArray, isRecord, pushBounded, restoreRecord, TREND_POINTS } from './detector-state';
import { binomialUpperTail, round, trendOf } from './stats';

export interface BreakerCandidateState {
  /** Latest failure percentages per upstream (trend). */
  upstreams: Record<string, number[]>;
}

/** 1 - P(Binomial(n, failurePercent%) >= k). */
export function breakerCandidateConfidence(n: number, k: number, failurePercent: number): number {
  return 1 - binomialUpperTail(n, failurePercent / 100, k);
}

/**
 * CIRCUIT_BREAKER_CANDIDATE: an upstream failing badly while no breaker protects it (its breaker
 * CLOSED or absent): at least `failurePercent` of at least `minRequests` requests in one evaluation
 * failed (Envoy's failure-percentage rule, 85 % of 50 by default). confidence = 1 - P(Binomial(n,
 * failurePercent) >= k): how unlikely k failures in n requests would be at exactly that rate.
 */
export const circuitBreakerCandidateDetector: Detector<BreakerCandidateState> = {
  kind: 'CIRCUIT_BREAKER_CANDIDATE',
  initialState: () => ({ upstreams: {} }),
  restoreState(stored) {
    const upstreams = isRecord(stored) ? restoreRecord(stored['upstreams'], isNumberArray) : undefined;
    return upstreams === undefined ? undefined : { upstreams };
  },
  evaluate(tick, state, context) {
    const settings = context.settings.breakerCandidate;
    const signals: Signal[] = [];
    const seen = new Set<string>();
    for (const upstream of tick.upstreams) {
      seen.add(upstream.upstream);
      const percent = upstream.requests > 0 ? (100 * upstream.failures) / upstream.requests : 0;
      const recent = (state.upstreams[upstream.upstream] ??= []);
      pushBounded(recent, percent, TREND_POINTS);
      const ratio = percent / settings.failurePercent;
      const signal: Signal = { fingerprint: `CIRCUIT_BREAKER_CANDIDATE:upstream:${upstream.upstream}`, ratio };
      const unprotected = upstream.breaker === undefined || upstream.breaker === 'CLOSED';
      if (unprotected && upstream.requests >= settings.minRequests && percent >= settings.failurePercent) {
        signal.event = {
          type: 'CIRCUIT_BREAKER_CANDIDATE',
          severity: 'CRITICAL',
          summary: `Upstream ${upstream.upstream}: ${round(percent, 1)} % of ${upstream.requests} requests failed and ${upstream.breaker === undefined ? 'no breaker protects it' : 'its breaker is closed'}`,
          confidence: round(breakerCandidateConfidence(upstream.requests, upstream.failures, settings.failurePercent)),
          data: { current_value: round(percent, 2), threshold: settings.failurePercent, breach_ratio: round(ratio, 3), trend: trendOf(recent) },
          context: { upstream: upstream.upstream, breaker: upstream.breaker ?? null, requests: upstream.requests, failures: upstream.failures },
        };
      }
      signals.push(signal);
    }
    for (const name of Object.keys(state.upstreams)) if (!seen.has(name)) delete state.upstreams[name];
    return signals;
  },
};
