import type { BreakerKind, BreakerStatus } from '@gateway/events';
import type { OutboundAddressRule } from '@gateway/outbound-target';
import type { DeadlineWheel } from './deadline-wheel';

export type { BreakerStatus } from '@gateway/events';
import type { Exchange } from './exchange';

/**
 * What the engine needs from the outside world. Adapters under `src/adapters/` implement these
 * with libraries (pino, prom-client); the engine itself imports only node built-ins.
 */
export interface Logger {
  /**
   * LOG_LEVEL is debug or more verbose. Fixed for the process: policies that log only at debug
   * (the access log) read it when a route compiles and cost nothing per request otherwise.
   */
  readonly debugEnabled?: boolean;
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** One breaker as the state gauge exports it; `kind` says route or upstream. */
export interface BreakerGaugeValue {
  readonly name: string;
  readonly kind: BreakerKind;
  readonly state: BreakerStatus['state'];
}

export interface GatewayMetrics {
  /**
   * One finished request. Labels per decision 18: the route id for gateway_*, the path pattern for
   * http_*. Positional, so the hot path allocates no observation object.
   */
  observeRequest(routeId: string, routePattern: string, method: string, status: number, durationMs: number): void;
  rateLimitHit(routeId: string): void;
  /**
   * Where the breaker-state gauge (0 CLOSED, 1 HALF_OPEN, 2 OPEN) reads its values, when /metrics
   * is scraped: a breaker reaches HALF_OPEN by time alone, so a value pushed on transitions would lag.
   */
  breakerStates(read: () => Iterable<BreakerGaugeValue>): void;
  /** An upstream attempt after the first one (retry policy, decision 16). */
  upstreamRetry(routeId: string): void;
  /** A request refused by gateway authentication (401/503); never carries the credential. */
  authFailure(routeId: string, scheme: string, reason: string): void;
  /** A response-cache decision: HIT, MISS or BYPASS. */
  cacheLookup(routeId: string, result: 'HIT' | 'MISS' | 'BYPASS'): void;
  configReload(result: 'success' | 'failure'): void;
  setRouteCount(count: number): void;
  /** The control plane revision the live table was built from (gateway_config_revision). */
  setConfigRevision(revision: number): void;
  /** The text exposition of every metric. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** Upstream-facing health that readiness reads (decision 19); filled in by resilience policies. */
export interface UpstreamHealthSource {
  /** Every breaker by name: an upstream name, or `route:<id>` for a route's own. */
  breakers(): Record<string, BreakerStatus>;
  /** Targets whose active health check says Unhealthy: upstream names and `route:<id>` checks. */
  unhealthyUpstreams(): string[];
  /** Every upstream name known to the current configuration. */
  upstreamNames(): string[];
}

/** Spec 2.3 strategies; the wire values of the route model. */
export type RateLimitAlgorithm = 'token-bucket' | 'fixed-window' | 'sliding-window' | 'leaky-bucket';

/** A compiled rate-limit rule: what one key may do. */
export interface RateLimitRule {
  readonly algorithm: RateLimitAlgorithm;
  readonly limit: number;
  readonly windowMs: number;
}

/** The outcome of counting one request against a key. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Requests still allowed right now (0 when rejected). */
  remaining: number;
  /** Epoch ms at which the key is back to its full allowance. */
  resetAt: number;
  /** ms until a request would be allowed again (0 when allowed). */
  retryAfterMs: number;
  /** Opaque handle for `refund` (window id, log entry). */
  ref: string;
}

/**
 * Where rate-limit counters live: in process by default, Redis when configured (an adapter). One
 * atomic operation per request and strategy; a synchronous answer costs no promise.
 */
export interface RateLimitStore {
  consume(key: string, rule: RateLimitRule): RateLimitDecision | Promise<RateLimitDecision>;
  /** Gives back what `consume` took (skipSuccessfulRequests / skipFailedRequests); best effort. */
  refund(key: string, rule: RateLimitRule, decision: RateLimitDecision): void;
  close(): Promise<void>;
}

/** A breaker that changed to OPEN (the event layer publishes `circuit_breaker.opened`). */
export interface BreakerOpenedEvent {
  breaker: string;
  kind: BreakerKind;
  /** Routes served through the breaker. */
  routeIds: string[];
  reason: 'failures' | 'half-open-failure' | 'manual';
  at: string;
}

/** Outward notifications of the resilience policies; adapters or the composition root implement them. */
export interface ResilienceEvents {
  breakerOpened(event: BreakerOpenedEvent): void;
}

/** Where resilience policies report breakers and health-check verdicts (readiness reads them back). */
export interface UpstreamHealthSink extends UpstreamHealthSource {
  registerBreaker(name: string, status: () => BreakerStatus): void;
  unregisterBreaker(name: string): void;
  markHealthy(name: string, healthy: boolean): void;
}

/** Names one piece of long-lived policy state and how to make it. */
export interface PolicyStateKey<T> {
  readonly name: string;
  create(services: EngineServices): T;
}

/** Long-lived policy state, created on first use (see policy-state.ts). */
export interface PolicyStateStore {
  get<T>(key: PolicyStateKey<T>): T;
}

/**
 * Services the edge policies (cache, authentication) need beyond the engine's own; long-lived,
 * shared by every route table of one data plane.
 */
export interface EdgeServices {
  /** Response cache, keyed by route id (survives reloads; purged per route). */
  readonly responseCache: import('../policies/cache/response-cache').ResponseCache;
  /** Verifies JWTs (the jose adapter). */
  readonly jwt: import('../policies/auth/jwt-verifier').JwtVerifierFactory;
  /** Verifies API keys (HMAC digests fed by the control plane). */
  readonly apiKeys: import('../policies/auth/api-key-verifier').ApiKeyVerifier;
  /** Session-service clients with their session caches (gateway authentication, spec 5.4). */
  readonly sessions: import('../policies/auth/session-validator').SessionValidators;
  /** Reads a secret the configuration names (an environment variable); never logged. */
  secret(name: string): string | undefined;
}

export interface EngineServices {
  /** Deadlines of upstream attempts (timeout policy). */
  readonly deadlines: DeadlineWheel<Exchange>;
  readonly logger: Logger;
  readonly metrics: GatewayMetrics;
  readonly health: UpstreamHealthSink;
  /** Rate-limit counters (memory, or Redis through an adapter). */
  readonly rateLimitStore: RateLimitStore;
  /** Long-lived policy state (breakers, health checks, usage) that survives reloads. */
  readonly state: PolicyStateStore;
  readonly events: ResilienceEvents;
  /** Gateway version (package version), for /version and /health. */
  readonly version: string;
  readonly startedAt: number;
  readonly edge: EdgeServices;
  /** Where requests the gateway makes on an admin's behalf (active health checks) may go. */
  readonly outbound: OutboundAddressRule;
  /** Per-route and per-upstream traffic tallies of the telemetry windows; absent when telemetry is off. */
  readonly telemetry?: import('../policies/telemetry/telemetry-registry').TelemetryRegistry;
}
