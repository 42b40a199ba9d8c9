/*
 * Status records of the data plane's resilience policies: what its in-process functions return
 * and what it answers on the bus. Shared so the control plane reads them without copies.
 */

export type BreakerState = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

/** `route`: a route's own breaker (`route:<id>`); `upstream`: a proxy.yml upstream's, shared by its routes. */
export type BreakerKind = 'route' | 'upstream';

/** Spec 2.7's circuit breaker status record. */
export interface BreakerStatus {
  state: BreakerState;
  /** Failures in the rolling window (route breaker) or consecutive failures (upstream breaker). */
  failures: number;
  /** Successful test requests while HALF_OPEN. */
  successes: number;
  /** ISO 8601, or null when it never failed. */
  lastFailureTime: string | null;
}

/** A breaker with its identity: its name, its kind and the routes whose traffic passes it. */
export interface BreakerRecord extends BreakerStatus {
  name: string;
  kind: BreakerKind;
  routeIds: string[];
}

/** UI health indicators of spec 2.4. */
export type HealthIndicator = 'Healthy' | 'Degraded' | 'Unhealthy' | 'Unknown';

/** One actively checked target (a route's check or its upstream's). */
export interface HealthCheckStatus {
  status: HealthIndicator;
  url: string;
  /** ISO 8601 of the last finished check, null before the first. */
  lastCheck: string | null;
  consecutiveSuccesses: number;
  consecutiveFailures: number;
  /** ms of the last check, null before the first. */
  latencyMs: number | null;
  /** Why the last check failed, if it did. */
  lastError: string | null;
}

/** Counts of one rate-limit key (or of a whole route). */
export interface KeyUsage {
  /** The key's scope part (`ip:203.0.113.7`, `key:<digest>`, ...); never a raw credential. */
  key: string;
  /** Requests counted and let through. */
  hits: number;
  /** Requests answered 429. */
  rejections: number;
}

/** One data plane's rate-limit usage of a route since it started counting it. */
export interface RateLimitUsage {
  routeId: string;
  hits: number;
  rejections: number;
  /** The keys with the most requests (hits + rejections), busiest first. */
  busiestKeys: KeyUsage[];
  /** ISO 8601: when this data plane started counting the route. */
  since: string;
}
