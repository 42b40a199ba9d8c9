import type { BreakerState, HealthCheckStatus, HealthIndicator, KeyUsage, RateLimitUsage, RouteBreakerView } from '@gateway/events';

/*
 * How the answers of N data planes become one record (docs/route-operations.md). Each data plane
 * keeps its own breakers, checks and counters; these rules say what "the route's" state is.
 */

const BREAKER_SEVERITY: Record<BreakerState, number> = { CLOSED: 0, HALF_OPEN: 1, OPEN: 2 };
/** Unknown ranks above Healthy: "healthy" is claimed only when every data plane has seen it. */
const HEALTH_SEVERITY: Record<HealthIndicator, number> = { Healthy: 0, Unknown: 1, Degraded: 2, Unhealthy: 3 };

function present<T>(values: ReadonlyArray<T | null>): T[] {
  return values.filter((v): v is T => v !== null);
}

/** The later of two ISO 8601 instants (null: never). */
function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/**
 * The route's breaker over every data plane: the most severe state (OPEN > HALF_OPEN > CLOSED)
 * with that data plane's breaker name and kind, failures and successes summed, the latest
 * failure. Null when no data plane has a breaker for the route.
 */
export function aggregateBreakers(views: ReadonlyArray<RouteBreakerView | null>): RouteBreakerView | null {
  const breakers = present(views);
  const first = breakers[0];
  if (first === undefined) return null;
  const worst = breakers.reduce((a, b) => (BREAKER_SEVERITY[b.state] > BREAKER_SEVERITY[a.state] ? b : a), first);
  return {
    name: worst.name,
    kind: worst.kind,
    state: worst.state,
    failures: breakers.reduce((sum, b) => sum + b.failures, 0),
    successes: breakers.reduce((sum, b) => sum + b.successes, 0),
    lastFailureTime: breakers.reduce<string | null>((latest, b) => later(latest, b.lastFailureTime), null),
  };
}

/**
 * The route's health check over every data plane (each checks on its own): the record of the data
 * plane with the most severe status (Unhealthy > Degraded > Unknown > Healthy), the latest check
 * among equals. Consecutive counts belong to one data plane's check sequence, so they are never
 * summed. Null when no data plane checks the route.
 */
export function aggregateChecks(checks: ReadonlyArray<HealthCheckStatus | null>): HealthCheckStatus | null {
  const all = present(checks);
  const first = all[0];
  if (first === undefined) return null;
  return all.reduce((a, b) => {
    const bySeverity = HEALTH_SEVERITY[b.status] - HEALTH_SEVERITY[a.status];
    if (bySeverity !== 0) return bySeverity > 0 ? b : a;
    return b.lastCheck !== null && (a.lastCheck === null || Date.parse(b.lastCheck) > Date.parse(a.lastCheck)) ? b : a;
  }, first);
}

export interface UsageTotals {
  hits: number;
  rejections: number;
  /** At most `top`, busiest (hits + rejections) first, ties by key. */
  busiestKeys: KeyUsage[];
}

/** Keys by traffic, busiest first; ties by key so every answer lists them in the same order. */
export function busiestFirst(keys: Iterable<KeyUsage>, top: number): KeyUsage[] {
  return [...keys].sort((a, b) => b.hits + b.rejections - (a.hits + a.rejections) || a.key.localeCompare(b.key)).slice(0, top);
}

/**
 * Rate-limit usage over every data plane: hits and rejections summed, the busiest keys merged (a
 * key's counts summed over the data planes that list it) and cut to `top`.
 */
export function mergeUsage(usages: ReadonlyArray<RateLimitUsage | null>, top: number): UsageTotals {
  const keys = new Map<string, KeyUsage>();
  let hits = 0;
  let rejections = 0;
  for (const usage of present(usages)) {
    hits += usage.hits;
    rejections += usage.rejections;
    for (const k of usage.busiestKeys) {
      const merged = keys.get(k.key);
      if (merged === undefined) keys.set(k.key, { ...k });
      else {
        merged.hits += k.hits;
        merged.rejections += k.rejections;
      }
    }
  }
  return { hits, rejections, busiestKeys: busiestFirst(keys.values(), top) };
}
