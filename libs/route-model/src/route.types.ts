/**
 * The canonical route (spec 2.1, "variant A"). Every other shape — variant B from the admin
 * feature (spec 2.2), the `proxy.yml` form (spec 2.6) — is normalized into this one by
 * `normalizeRoute()`; the API, the config loader and the data plane all speak this type.
 */

/** Methods a route may list. Spec 2.1 names five; HEAD and OPTIONS are accepted too (decision 16 retries them). */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type RouteSource = 'api' | 'file';

export const RATE_LIMIT_STRATEGIES = ['token-bucket', 'fixed-window', 'sliding-window', 'leaky-bucket'] as const;
export type RateLimitStrategy = (typeof RATE_LIMIT_STRATEGIES)[number];

export const RATE_LIMIT_SCOPES = ['ip', 'user', 'apiKey', 'route'] as const;
export type RateLimitScope = (typeof RATE_LIMIT_SCOPES)[number];

export interface RateLimitConfig {
  enabled: boolean;
  /** Requests allowed per window; > 0. */
  max: number;
  /** Window length in ms. */
  windowMs: number;
  strategy: RateLimitStrategy;
  scope: RateLimitScope;
  /** UI extra: a key expression such as `header:x-tenant`; replaces `scope` when set. */
  keyExpression?: string;
  skipSuccessfulRequests?: boolean;
  skipFailedRequests?: boolean;
  /** UI extra: custom rejection. */
  response?: { status?: number; message?: string; headers?: Record<string, string> };
}

export interface HeaderRules {
  /** Header name -> value; values may use `${requestId}`, `${timestamp}`, ... (spec 2.1). */
  set?: Record<string, string>;
  /** Header names to remove. */
  remove?: string[];
}

export interface HeadersConfig {
  request?: HeaderRules;
  response?: HeaderRules;
}

export interface HealthCheckConfig {
  enabled: boolean;
  /** Default: the upstream URL plus `/health`. */
  url?: string;
  interval: number;
  timeout: number;
  unhealthyThreshold: number;
  healthyThreshold: number;
  expectedStatus?: number;
  expectedBody?: string;
}

export interface TimeoutConfig {
  /** ms to establish the upstream connection; 100..60000. */
  connect?: number;
  /** ms for the whole upstream exchange (per attempt); 100..60000, default 5000. */
  request: number;
  /** ms an idle upstream socket is kept for reuse. */
  keepAlive?: number;
  /** ms the upstream may stay silent between two chunks of a response body once its head arrived; unset: `request`. */
  idle?: number;
}

/** WebSocket proxying of a route (docs/data-plane.md, "WebSocket"). */
export interface WebSocketConfig {
  /** `Upgrade: websocket` handshakes (GET) are forwarded; otherwise the Upgrade header is dropped. */
  enabled: boolean;
  /** ms without a byte in either direction before the gateway closes the connection (1001). */
  idleTimeout: number;
  /** Open connections on this route per data plane; a handshake beyond it is answered 503. */
  maxConnections: number;
}

export interface RetryConfig {
  enabled: boolean;
  /** 0..10, default 3. */
  attempts: number;
  backoff: 'exponential';
  initialDelay?: number;
  maxDelay?: number;
  multiplier?: number;
  jitter?: boolean;
  /** Methods retried besides the idempotent ones (decision 16). */
  methods?: HttpMethod[];
}

export interface CircuitBreakerConfig {
  enabled: boolean;
  /** Percent of failed requests that trips the breaker, (0, 100] (decision 7: stored as percent). */
  threshold: number;
  /** ms the breaker stays open before a test request. */
  timeout: number;
  resetTimeout?: number;
  /** Minimum requests in the window before the ratio is evaluated. */
  volumeThreshold: number;
  /** Statuses counted as failures; default 500, 502, 503, 504. */
  errorStatuses?: number[];
  fallback?: { status: number; body?: string; headers?: Record<string, string> };
}

export interface TransformConfig {
  request?: {
    query?: Record<string, string>;
    headers?: { add?: Record<string, string>; remove?: string[] };
  };
  response?: {
    body?: { exclude?: string[] };
  };
}

export const CACHE_VARY_KEYS = ['method', 'path', 'query'] as const;
export type CacheVaryKey = (typeof CACHE_VARY_KEYS)[number];

export interface CacheConfig {
  enabled: boolean;
  /** ms. */
  ttl: number;
  varyBy?: CacheVaryKey[];
  cacheableStatuses?: number[];
  /** Cache responses to requests that carry `Authorization` (off by default). */
  cacheAuthorized?: boolean;
  /** Seconds a stale entry may still be served while one background request refreshes it (RFC 5861). */
  staleWhileRevalidate?: number;
  /** Seconds a stale entry may still be served when the upstream fails (RFC 5861). */
  staleIfError?: number;
}

/**
 * Per-route IP allow and deny lists (IPs or CIDRs, IPv4 and IPv6), checked against the client
 * address through `proxy.trustedProxies`. A denied address is refused even when allowed; with an
 * allow list, any other address is refused (403).
 */
export interface IpRestrictionConfig {
  enabled: boolean;
  allow?: string[];
  deny?: string[];
}

/** Per-route CORS answered by the gateway (docs/access-rules.md). */
export interface CorsConfig {
  enabled: boolean;
  /** `*`, exact origins (`https://app.example.com`) or patterns with a leading `*.` host label (`https://*.example.com`). */
  origins: string[];
  /** Methods a preflight allows; omitted: the route's methods (every method when it has none). */
  methods?: HttpMethod[];
  /** Request headers a preflight allows; omitted: the ones the preflight asks for. */
  headers?: string[];
  /** Response headers scripts may read (Access-Control-Expose-Headers). */
  exposedHeaders?: string[];
  /** Access-Control-Allow-Credentials: true; never with origin `*`. */
  credentials: boolean;
  /** Seconds a browser may cache a preflight answer (Access-Control-Max-Age). */
  maxAge?: number;
}

export const AUTH_TYPES = ['none', 'jwt', 'apiKey', 'basic', 'oauth2', 'custom'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

export interface AuthConfig {
  enabled: boolean;
  type?: AuthType;
  jwt?: {
    /** Name of the environment variable that holds the secret; the secret itself is never stored. */
    secretEnv?: string;
    algorithms?: string[];
    validateIssuer?: boolean;
    issuer?: string;
    validateExpiration?: boolean;
  };
  basic?: { users: Record<string, string> };
  /** `proxy.yml` form (spec 5.4). */
  required?: boolean;
  provider?: string;
  allowAnonymous?: boolean;
}

/** The canonical route: every field present that has a default. */
export interface Route {
  id: string;
  path: string;
  upstream: string;
  /** Omitted: every method. */
  methods?: HttpMethod[];
  enabled: boolean;
  description: string;
  priority: number;
  tags: string[];
  /** Decision 15: false forwards the whole original path. Default true. */
  stripPath: boolean;
  timeout: TimeoutConfig;
  rateLimit?: RateLimitConfig;
  headers?: HeadersConfig;
  healthCheck?: HealthCheckConfig;
  retry?: RetryConfig;
  circuitBreaker?: CircuitBreakerConfig;
  transform?: TransformConfig;
  cache?: CacheConfig;
  auth?: AuthConfig;
  ipRestriction?: IpRestrictionConfig;
  cors?: CorsConfig;
  websocket?: WebSocketConfig;
  /** Name of the `proxy.yml` upstream the route was declared against, if any. */
  upstreamName?: string;
  source?: RouteSource;
  /** ISO 8601 (decision 4). */
  createdAt?: string;
  updatedAt?: string;
}

/** One failing field. `field` is a dotted path (`routes[2].timeout.request`). */
export interface FieldError {
  field: string;
  message: string;
  /** Stable UPPER_SNAKE code (decision 3): INVALID_PATH, INVALID_URL, VALIDATION_ERROR, ... */
  code: string;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };
