import { deepFreeze } from './deep-freeze';

/**
 * What normalizeRoute fills in (the schema table in route.schema.ts reads every default from here).
 * Top-level values, `timeout` and `retry` are applied to every route; a block's inner defaults
 * apply when the block is given (`rateLimit: { max: 10 }` gets strategy, scope, window ...).
 */
export const ROUTE_DEFAULTS = deepFreeze({
  enabled: true,
  description: '',
  /** Spec 2.1; higher matches first (decision 14). */
  priority: 50,
  tags: [],
  /** Decision 15. */
  stripPath: true,
  /** Spec 8 / decision 8: one upstream attempt, 100..60000 ms. */
  timeout: { request: 5000 },
  /** Decision 16: three retries with exponential backoff, idempotent methods only. */
  retry: { enabled: true, attempts: 3, backoff: 'exponential', initialDelay: 100, maxDelay: 2000, multiplier: 2, jitter: true },
  /** 100 per minute mirrors spec 8's general API tier; token bucket per client IP as spec 2.3 recommends. */
  rateLimit: { enabled: true, max: 100, windowMs: 60_000, strategy: 'token-bucket', scope: 'ip' },
  /** Spec 2.4 examples. */
  healthCheck: { enabled: true, interval: 30_000, timeout: 5_000, unhealthyThreshold: 3, healthyThreshold: 2, expectedStatus: 200 },
  /** Spec 2.5 examples (threshold is a percent, decision 7) and the UI's error statuses. */
  circuitBreaker: { enabled: true, threshold: 50, timeout: 30_000, volumeThreshold: 10, errorStatuses: [500, 502, 503, 504] },
  /** Kong proxy-cache defaults (5 minutes; 200, 301, 404); responses to authorized requests are not cached. */
  cache: { enabled: true, ttl: 300_000, varyBy: ['method', 'path', 'query'], cacheableStatuses: [200, 301, 404], cacheAuthorized: false },
  ipRestriction: { enabled: true },
  /** Credentials off: a credentialed CORS answer must be asked for. */
  cors: { enabled: true, credentials: false },
  /** No block, no WebSockets; a given block is on (as every block); 60 s idle as nginx's proxy_read_timeout; a bound per route so one route cannot take every socket. */
  websocket: { enabled: true, idleTimeout: 60_000, maxConnections: 1000 },
  auth: { enabled: true, jwt: { algorithms: ['HS256'], validateIssuer: false, validateExpiration: true } },
} as const);
