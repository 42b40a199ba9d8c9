import type { Detector, Signal } from './detector';
import { isNumberArray, isRecord, pushBounded, restoreRecord, TREND_POINTS } from './detector-state';
import { binomialUpperTail, round, trendOf } from './stats';

export interface BreakerCandidateState {
  /** Latest failure percentages per upstream (trend). */
  upstreams: Record<string, number[]>;
  /** When each upstream's breaker was last seen OPEN or HALF_OPEN: a breaker that acts is no candidate. */
  protectedAt: Record<string, number>;
}

/** A breaker seen acting within this long still protects its upstream while it is closed between trips. */
export const BREAKER_PROTECTION_MS = 300_000;

/** 1 - P(Binomial(n, failurePercent%) >= k). */
export function breakerCandidateConfidence(n: number, k: number, failurePercent: number): number {
  return 1 - binomialUpperTail(n, failurePercent / 100, k);
}

/**
 * CIRCUIT_BREAKER_CANDIDATE: an upstream failing badly while no breaker protects it (its breaker
 * CLOSED or absent, and not seen OPEN or HALF_OPEN in the last 5 minutes): at least `failurePercent` of at least `minRequests` requests in one evaluation
 * failed (Envoy's failure-percentage rule, 85 % of 50 by default). confidence = 1 - P(Binomial(n,
 * failurePercent) >= k): how unlikely k failures in n requests would be at exactly that rate.
 */
export const circuitBreakerCandidateDetector: Detector<BreakerCandidateState> = {
  kind: 'CIRCUIT_BREAKER_CANDIDATE',
  initialState: () => ({ upstreams: {}, protectedAt: {} }),
  restoreState(stored) {
    const upstreams = isRecord(stored) ? restoreRecord(stored['upstreams'], isNumberArray) : undefined;
    const protectedAt = isRecord(stored) ? restoreRecord(stored['protectedAt'], (value): value is number => typeof value === 'number') : undefined;
    return upstreams === undefined || protectedAt === undefined ? undefined : { upstreams, protectedAt };
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
      if (upstream.breaker === 'OPEN' || upstream.breaker === 'HALF_OPEN') state.protectedAt[upstream.upstream] = tick.start;
      const lastProtected = state.protectedAt[upstream.upstream];
      const unprotected = lastProtected === undefined || lastProtected < tick.start - BREAKER_PROTECTION_MS;
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
    for (const [name, at] of Object.entries(state.protectedAt)) if (at < tick.start - BREAKER_PROTECTION_MS) delete state.protectedAt[name];
    return signals;
  },
};
