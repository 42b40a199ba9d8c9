import type { DeadlineWheel } from './deadline-wheel';
import type { Exchange } from './exchange';
/**
 * What the engine needs from the outside world. Adapters under `src/adapters/` implement these
 * with libraries (pino, prom-client); the engine itself imports only node built-ins.
 */
export interface Logger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface GatewayMetrics {
  /**
   * One finished request. Labels per decision 18: the route id for gateway_*, the path pattern for
   * http_*. Positional, so the hot path allocates no observation object.
   */
  observeRequest(routeId: string, routePattern: string, method: string, status: number, durationMs: number): void;
  rateLimitHit(routeId: string): void;
  /** A request refused by gateway authentication (401/503); never carries the credential. */
  authFailure(routeId: string, scheme: string, reason: string): void;
  /** A response-cache decision: HIT, MISS or BYPASS. */
  cacheLookup(routeId: string, result: 'HIT' | 'MISS' | 'BYPASS'): void;
  configReload(result: 'success' | 'failure'): void;
  setRouteCount(count: number): void;
  /** The text exposition of every metric. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** State of one breaker as `/health/deep` shows it (spec 2.7). */
export interface BreakerStatus {
  state: 'CLOSED' | 'OPEN' | 'HALF_OPEN';
  failures: number;
  successes: number;
  lastFailureTime: string | null;
}

/** Upstream-facing health that readiness reads (decision 19); filled in by resilience policies. */
export interface UpstreamHealthSource {
  breakers(): Record<string, BreakerStatus>;
  /** Names of upstreams whose active health check says unhealthy. */
  unhealthyUpstreams(): string[];
  /** Every upstream name known to the current configuration. */
  upstreamNames(): string[];
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
  readonly health: UpstreamHealthSource;
  /** Gateway version (package version), for /version and /health. */
  readonly version: string;
  readonly startedAt: number;
  readonly edge: EdgeServices;
}
