import type { BreakerKind, BreakerState, HealthCheckStatus, HealthIndicator, RateLimitUsage, RouteBreakerView } from '@gateway/events';
import type { RateLimitConfig } from '@gateway/route-model';
import type { Dispatched } from './command-dispatcher.service';
import { aggregateBreakers, aggregateChecks, busiestFirst, mergeUsage, type UsageTotals } from './operation-aggregates';

/*
 * API answers of the route operations (docs/route-operations.md): the aggregate over every data
 * plane that answered, the answer of each, and the live data planes that did not answer in time.
 */

/** Who answered and when. */
export interface DataPlaneAnswer {
  instanceId: string;
  /** ISO 8601 of the data plane's reply. */
  at: string;
}

interface Coverage<T> {
  dataPlanes: Array<DataPlaneAnswer & T>;
  /** Live data planes (presence) that did not answer within the bound. */
  missing: string[];
}

/** Spec 2.7's status record, aggregated; `enabled: false` (and nulls) when no data plane has a breaker for the route. */
export interface CircuitBreakerResponse extends Coverage<{ breaker: RouteBreakerView | null }> {
  routeId: string;
  enabled: boolean;
  /** `route:<id>` (the route's own breaker) or the upstream's name. */
  name: string | null;
  kind: BreakerKind | null;
  state: BreakerState | null;
  failures: number;
  successes: number;
  lastFailureTime: string | null;
}

export interface RouteHealthResponse extends Coverage<{ check: HealthCheckStatus | null; breaker: RouteBreakerView | null }> {
  routeId: string;
  /** The aggregated check's status; null when no data plane checks the route. */
  status: HealthIndicator | null;
  check: HealthCheckStatus | null;
  breaker: RouteBreakerView | null;
}

export interface RateLimitResponse extends Coverage<{ usage: Omit<RateLimitUsage, 'routeId'> | null }> {
  routeId: string;
  /** The stored configuration says the route is limited. */
  enabled: boolean;
  /** The route's `rateLimit` block as stored; null when it has none. */
  config: RateLimitConfig | null;
  usage: UsageTotals;
}

function coverage<S extends 'circuit-breaker' | 'health' | 'rate-limit', T>(dispatched: Dispatched<S>, answer: (reply: Dispatched<S>['replies'][number]) => T): Coverage<T> {
  return { dataPlanes: dispatched.replies.map((reply) => ({ instanceId: reply.instanceId, at: reply.at, ...answer(reply) })), missing: dispatched.missing };
}

export function toCircuitBreakerResponse(routeId: string, dispatched: Dispatched<'circuit-breaker'>): CircuitBreakerResponse {
  const breaker = aggregateBreakers(dispatched.replies.map((r) => r.result.breaker));
  return {
    routeId,
    enabled: breaker !== null,
    name: breaker?.name ?? null,
    kind: breaker?.kind ?? null,
    state: breaker?.state ?? null,
    failures: breaker?.failures ?? 0,
    successes: breaker?.successes ?? 0,
    lastFailureTime: breaker?.lastFailureTime ?? null,
    ...coverage(dispatched, (r) => ({ breaker: r.result.breaker })),
  };
}

export function toRouteHealthResponse(routeId: string, dispatched: Dispatched<'health'>): RouteHealthResponse {
  const check = aggregateChecks(dispatched.replies.map((r) => r.result.check));
  return {
    routeId,
    status: check?.status ?? null,
    check,
    breaker: aggregateBreakers(dispatched.replies.map((r) => r.result.breaker)),
    ...coverage(dispatched, (r) => ({ check: r.result.check, breaker: r.result.breaker })),
  };
}

export function toRateLimitResponse(routeId: string, config: RateLimitConfig | undefined, dispatched: Dispatched<'rate-limit'>, top: number): RateLimitResponse {
  const perPlane = (usage: RateLimitUsage | null): Omit<RateLimitUsage, 'routeId'> | null =>
    usage === null ? null : { hits: usage.hits, rejections: usage.rejections, busiestKeys: busiestFirst(usage.busiestKeys, top), since: usage.since };
  return {
    routeId,
    enabled: config?.enabled === true,
    config: config ?? null,
    usage: mergeUsage(dispatched.replies.map((r) => r.result.usage), top),
    ...coverage(dispatched, (r) => ({ usage: perPlane(r.result.usage) })),
  };
}
