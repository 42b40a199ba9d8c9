import type { Route } from './route.types';

/** Twelve significant digits: enough for any threshold, and a fraction and its percent map back and forth exactly. */
const exact = (value: number): number => Number(value.toPrecision(12));

/**
 * Decision 7: `circuitBreaker.threshold` in (0, 1] is a fraction, in (1, 100] a percent; it is
 * stored as percent, so the stored (canonical) range is (0, 100].
 */
export function thresholdToPercent(value: number): number {
  return value > 0 && value <= 1 ? exact(value * 100) : value;
}

/**
 * The input spelling of a canonical route: normalizeRoute gives the route back. Only the breaker
 * threshold needs it: a stored percent of at most 1 (0.5 %) would be read again as a fraction
 * (50 %), so it is written as the fraction (0.005). The control plane merges a PATCH over this
 * form, so the unchanged fields of a stored route keep their meaning.
 */
export function canonicalRouteInput(route: Route): Route {
  const input = structuredClone(route);
  const breaker = input.circuitBreaker;
  if (breaker !== undefined && breaker.threshold > 0 && breaker.threshold <= 1) breaker.threshold = exact(breaker.threshold / 100);
  return input;
}
