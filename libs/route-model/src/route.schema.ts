import {
  AUTH_TYPES,
  CACHE_VARY_KEYS,
  HTTP_METHODS,
  RATE_LIMIT_SCOPES,
  RATE_LIMIT_STRATEGIES,
  type AuthConfig,
  type CacheConfig,
  type CircuitBreakerConfig,
  type CorsConfig,
  type HeaderRules,
  type HeadersConfig,
  type HealthCheckConfig,
  type IpRestrictionConfig,
  type RateLimitConfig,
  type RetryConfig,
  type Route,
  type TimeoutConfig,
  type TransformConfig,
  type WebSocketConfig,
} from './route.types';
import { arr, bool, forbidden, int, map, num, obj, str, type ArraySpec, type MapSpec, type NumberSpec, type ObjectSpec } from './field-spec';
import {
  routeSecretEnvCheck,
  headerNameCheck,
  headerTemplateCheck,
  headerValueCheck,
  HEADER_NAME,
  httpUrlCheck,
  ipOrCidrCheck,
  isoDateTimeCheck,
  nameCheck,
  routeIdCheck,
  routePathCheck,
} from './field-checks';
import { basicHashCheck } from './basic-hash';
import { corsOriginCheck, normalizeCorsOrigin } from './cors-origin';
import { thresholdToPercent } from './breaker-threshold';
import { ROUTE_DEFAULTS as D } from './route-defaults';
import { isPlainObject } from './schema-walker';

/**
 * The route schema (spec 2.1-2.5 and decisions 6-8, 12): one row per field with its default,
 * bounds and description. normalizeRoute and validateRoute both interpret this table; the
 * README's field table is this file in prose.
 */

const status = (doc: string): NumberSpec => int({ doc, min: 100, max: 599 });

const statusList = (doc: string, defaults?: readonly number[]): ArraySpec =>
  arr({ doc, items: status('an HTTP status'), unique: true, ...(defaults ? { default: defaults } : {}) });

const headerMap = (doc: string): MapSpec =>
  map({
    doc,
    keyPattern: HEADER_NAME,
    keyMessage: (label) => `${label} is not a valid header name`,
    values: str({ doc: 'header value', check: headerValueCheck }),
  });

/** Header values that may use the spec 2.1 variables (`${requestId}`, ...). */
const headerTemplateMap = (doc: string): MapSpec =>
  map({
    doc,
    keyPattern: HEADER_NAME,
    keyMessage: (label) => `${label} is not a valid header name`,
    values: str({ doc: 'header value; may use ${requestId}, ${timestamp}, ${clientIp}, ${route}, ${method}, ${responseTime}', check: headerTemplateCheck }),
  });

const headerNames = (doc: string): ArraySpec =>
  arr({ doc, items: str({ doc: 'header name', check: headerNameCheck }), unique: true });

const upper = (value: string): string => value.toUpperCase();

const methodList = (doc: string): ArraySpec =>
  arr({ doc, items: str({ doc: 'HTTP method', oneOf: HTTP_METHODS, normalize: upper }), minItems: 1, unique: true });

/**
 * Spec 2.1 writes `headers.request` as a plain map of name -> value; the canonical form is
 * `{ set, remove }`. An object whose keys are only `set` (an object) and/or `remove` (an array)
 * is already canonical; any other object is the map form.
 */
function isHeaderMapForm(raw: unknown): boolean {
  if (!isPlainObject(raw)) return false;
  const keys = Object.keys(raw);
  const canonical =
    keys.length > 0 &&
    keys.every((k) => k === 'set' || k === 'remove') &&
    (raw.set === undefined || isPlainObject(raw.set)) &&
    (raw.remove === undefined || Array.isArray(raw.remove));
  return !canonical;
}

const headerRules = (doc: string): ObjectSpec =>
  obj<HeaderRules>(
    {
      set: headerTemplateMap('header name -> value; values may use ${requestId}, ${timestamp}, ${clientIp}, ${route}, ${method}, ${responseTime}'),
      remove: headerNames('header names to remove'),
    },
    { doc, shorthand: { into: 'set', applies: isHeaderMapForm } },
  );

export const HEALTH_CHECK_SCHEMA = obj<HealthCheckConfig>(
  {
    enabled: bool({ doc: 'checks run', default: D.healthCheck.enabled }),
    url: str({ doc: 'URL probed; default the upstream URL plus /health', check: httpUrlCheck }),
    interval: int({ doc: 'ms between checks', default: D.healthCheck.interval, min: 0, exclusiveMin: true }),
    timeout: int({ doc: 'ms a check may take; at most interval', default: D.healthCheck.timeout, min: 0, exclusiveMin: true }),
    unhealthyThreshold: int({ doc: 'consecutive failures that mark the upstream unhealthy', default: D.healthCheck.unhealthyThreshold, min: 1 }),
    healthyThreshold: int({ doc: 'consecutive successes that mark it healthy', default: D.healthCheck.healthyThreshold, min: 1 }),
    expectedStatus: int({ doc: 'status a healthy upstream answers', default: D.healthCheck.expectedStatus, min: 100, max: 599 }),
    expectedBody: str({ doc: 'text the body must contain', maxLength: 4096 }),
  },
  { doc: 'active upstream health check (spec 2.4)' },
);

const TIMEOUT_SCHEMA = obj<TimeoutConfig>(
  {
    connect: int({ doc: 'ms to establish the upstream connection', min: 100, max: 60_000 }),
    request: int({ doc: 'ms for one upstream attempt, response included', default: D.timeout.request, min: 100, max: 60_000 }),
    keepAlive: int({ doc: 'ms an idle upstream socket is kept', min: 1, max: 600_000 }),
    idle: int({ doc: 'ms the upstream may be silent between two chunks of a response body (event streams); unset: timeout.request', min: 100, max: 3_600_000 }),
  },
  { doc: 'upstream timeouts; a number is timeout.request (variant B)', fill: true, shorthand: { into: 'request', applies: (raw) => typeof raw === 'number' } },
);

const RATE_LIMIT_SCHEMA = obj<RateLimitConfig>(
  {
    enabled: bool({ doc: 'limit applied', default: D.rateLimit.enabled }),
    max: int({ doc: 'requests per window', default: D.rateLimit.max, min: 0, exclusiveMin: true }),
    windowMs: int({ doc: 'window length, ms', default: D.rateLimit.windowMs, min: 1 }),
    strategy: str({ doc: 'counting algorithm', default: D.rateLimit.strategy, oneOf: RATE_LIMIT_STRATEGIES }),
    scope: str({ doc: 'what is counted separately', default: D.rateLimit.scope, oneOf: RATE_LIMIT_SCOPES }),
    keyExpression: str({
      doc: 'counts per header:, query:, cookie: or claim: value instead of scope',
      check: (value, label) => (/^(?:header|query|cookie|claim):[^\s]{1,128}$/.test(value) ? undefined : { message: `${label} must be header:<name>, query:<name>, cookie:<name> or claim:<name>` }),
    }),
    skipSuccessfulRequests: bool({ doc: 'responses below 400 are not counted' }),
    skipFailedRequests: bool({ doc: 'responses of 400 and above are not counted' }),
    response: obj<NonNullable<RateLimitConfig['response']>>(
      {
        status: int({ doc: 'status of the rejection', min: 400, max: 599 }),
        message: str({ doc: 'message of the rejection', maxLength: 1000 }),
        headers: headerMap('extra headers on the rejection'),
      },
      { doc: 'custom 429 answer' },
    ),
  },
  { doc: 'per-route rate limit (spec 2.3)' },
);

const RETRY_SCHEMA = obj<RetryConfig>(
  {
    enabled: bool({ doc: 'retries happen', default: D.retry.enabled }),
    attempts: int({ doc: 'retries after the first attempt', default: D.retry.attempts, min: 0, max: 10 }),
    backoff: str({ doc: 'delay growth', default: D.retry.backoff, oneOf: ['exponential'] }),
    initialDelay: int({ doc: 'ms before the first retry', default: D.retry.initialDelay, min: 0, max: 60_000 }),
    maxDelay: int({ doc: 'ms cap on one delay; at least initialDelay', default: D.retry.maxDelay, min: 0, max: 60_000 }),
    multiplier: num({ doc: 'delay factor per retry', default: D.retry.multiplier, min: 1, max: 10 }),
    jitter: bool({ doc: 'delays are randomized (full jitter)', default: D.retry.jitter }),
    methods: arr({ doc: 'non-idempotent methods also retried (decision 16)', items: str({ doc: 'HTTP method', oneOf: HTTP_METHODS, normalize: upper }), unique: true }),
  },
  { doc: 'retries (decision 16); always present after normalizing', fill: true },
);

const CIRCUIT_BREAKER_SCHEMA = obj<CircuitBreakerConfig>(
  {
    enabled: bool({ doc: 'breaker active', default: D.circuitBreaker.enabled }),
    threshold: num({
      doc: 'error percent that opens the breaker; a value in (0, 1] is read as a fraction (decision 7)',
      default: D.circuitBreaker.threshold,
      min: 0,
      exclusiveMin: true,
      max: 100,
      normalize: thresholdToPercent,
      rangeMessage: (label) => `${label} must be a fraction in (0, 1] or a percent in (1, 100]`,
    }),
    timeout: int({ doc: 'ms open before a test request', default: D.circuitBreaker.timeout, min: 1 }),
    resetTimeout: int({ doc: 'ms after which counts are reset', min: 1 }),
    volumeThreshold: int({ doc: 'requests needed before the ratio counts', default: D.circuitBreaker.volumeThreshold, min: 1 }),
    errorStatuses: statusList('statuses counted as failures', D.circuitBreaker.errorStatuses),
    fallback: obj<NonNullable<CircuitBreakerConfig['fallback']>>(
      {
        status: int({ doc: 'status answered while open', required: true, min: 100, max: 599 }),
        body: str({ doc: 'body answered while open', maxLength: 65_536 }),
        headers: headerMap('headers answered while open'),
      },
      { doc: 'answer while open instead of the 503 of spec 7.3' },
    ),
  },
  { doc: 'per-route breaker (spec 2.5)' },
);

type TransformRequest = NonNullable<TransformConfig['request']>;
const TRANSFORM_SCHEMA = obj<TransformConfig>(
  {
    request: obj<TransformRequest>(
      {
        query: map({
          doc: 'query parameters set on the upstream request',
          keyPattern: /^[^\s&=#]{1,256}$/,
          keyMessage: (label) => `${label} is not a valid query parameter name`,
          values: str({ doc: 'value', maxLength: 4096 }),
        }),
        headers: obj<NonNullable<TransformRequest['headers']>>(
          { add: headerTemplateMap('headers added to the upstream request when the client did not send them'), remove: headerNames('headers removed from the upstream request') },
          { doc: 'request header changes' },
        ),
      },
      { doc: 'changes to the upstream request' },
    ),
    response: obj<NonNullable<TransformConfig['response']>>(
      {
        body: obj<NonNullable<NonNullable<TransformConfig['response']>['body']>>(
          { exclude: arr({ doc: 'JSON fields removed from the response body', items: str({ doc: 'field name', minLength: 1 }), unique: true }) },
          { doc: 'response body changes' },
        ),
      },
      { doc: 'changes to the response' },
    ),
  },
  { doc: 'request and response transformation (spec 2.1)' },
);

const CACHE_SCHEMA = obj<CacheConfig>(
  {
    enabled: bool({ doc: 'responses cached', default: D.cache.enabled }),
    ttl: int({ doc: 'ms an entry lives', default: D.cache.ttl, min: 1 }),
    varyBy: arr({ doc: 'parts of the request in the cache key', items: str({ doc: 'key part', oneOf: CACHE_VARY_KEYS }), default: D.cache.varyBy, unique: true }),
    cacheableStatuses: statusList('statuses cached', D.cache.cacheableStatuses),
    cacheAuthorized: bool({ doc: 'cache responses to requests with credentials (Authorization or X-API-Key)', default: D.cache.cacheAuthorized }),
    staleWhileRevalidate: int({ doc: 'seconds a stale entry is still served while one background request refreshes it', min: 0, max: 86_400 }),
    staleIfError: int({ doc: 'seconds a stale entry is still served when the upstream fails (5xx, connection error, timeout)', min: 0, max: 86_400 }),
  },
  { doc: 'response cache (spec 2.1)' },
);

const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'EdDSA'] as const;

const AUTH_SCHEMA = obj<AuthConfig>(
  {
    enabled: bool({ doc: 'authentication applied', default: D.auth.enabled }),
    type: str({ doc: 'scheme', oneOf: AUTH_TYPES }),
    jwt: obj<NonNullable<AuthConfig['jwt']>>(
      {
        // Spec 2.1 says the secret is "taken from the environment": config names the variable only.
        secret: forbidden({
          doc: 'refused: use secretEnv',
          message: (label) => `${label} is not accepted: secrets never live in config; put the secret in an environment variable and give its name in auth.jwt.secretEnv`,
        }),
        secretEnv: str({ doc: 'environment variable holding the route\'s secret; required for type jwt; not one of the gateway\'s own (MANAGEMENT_SECRET_VARIABLES)', check: routeSecretEnvCheck }),
        // `none` is left out on purpose: an unsigned token must never pass.
        algorithms: arr({ doc: 'accepted algorithms', items: str({ doc: 'algorithm', oneOf: JWT_ALGORITHMS }), default: D.auth.jwt.algorithms, minItems: 1, unique: true }),
        validateIssuer: bool({ doc: 'iss must equal issuer', default: D.auth.jwt.validateIssuer }),
        issuer: str({ doc: 'expected iss; required when validateIssuer', minLength: 1 }),
        validateExpiration: bool({ doc: 'exp is enforced', default: D.auth.jwt.validateExpiration }),
      },
      { doc: 'per-route JWT check (spec 5.7)' },
    ),
    basic: obj<NonNullable<AuthConfig['basic']>>(
      {
        users: map({
          doc: 'user -> password hash (the basic-auth policy defines the hash format)',
          required: true,
          // RFC 7617: a user-id cannot contain a colon.
          keyPattern: /^[^:\s]{1,128}$/,
          keyMessage: (label) => `${label} is not a valid user name`,
          values: str({ doc: 'password hash: scrypt$<N>$<r>$<p>$<salt base64>$<key base64> (docs/edge-policies.md)', check: basicHashCheck }),
        }),
      },
      { doc: 'basic authentication users; required for type basic' },
    ),
    required: bool({ doc: 'proxy.yml form: a session is required (spec 5.4)' }),
    provider: str({ doc: 'proxy.yml form: the session provider', check: nameCheck }),
    allowAnonymous: bool({ doc: 'proxy.yml form: requests without a token pass' }),
  },
  { doc: 'route authentication (spec 2.1, 5)' },
);

const addressList = (doc: string): ArraySpec => arr({ doc, items: str({ doc: 'IP or CIDR', check: ipOrCidrCheck }), unique: true });

const IP_RESTRICTION_SCHEMA = obj<IpRestrictionConfig>(
  {
    enabled: bool({ doc: 'lists applied', default: D.ipRestriction.enabled }),
    allow: addressList('client addresses served (IPs or CIDRs, IPv4 or IPv6); when given, every other address gets 403'),
    deny: addressList('client addresses refused with 403, even when allowed'),
  },
  { doc: 'IP allow and deny lists, on the client address through proxy.trustedProxies (docs/access-rules.md)' },
);

const CORS_SCHEMA = obj<CorsConfig>(
  {
    enabled: bool({ doc: 'the gateway answers CORS', default: D.cors.enabled }),
    origins: arr({
      doc: 'allowed origins: *, exact (https://app.example.com) or https://*.example.com patterns',
      required: true,
      minItems: 1,
      unique: true,
      items: str({ doc: 'origin', normalize: normalizeCorsOrigin, check: corsOriginCheck }),
    }),
    methods: methodList("methods a preflight allows; omitted: the route's methods"),
    headers: headerNames('request headers a preflight allows; omitted: those it asks for'),
    exposedHeaders: headerNames('response headers scripts may read'),
    credentials: bool({ doc: 'Access-Control-Allow-Credentials: true (not with origin *)', default: D.cors.credentials }),
    maxAge: int({ doc: 'seconds a browser may cache a preflight answer', min: 0, max: 86_400 }),
  },
  { doc: 'CORS answered by the gateway; preflights never reach the upstream (docs/access-rules.md)' },
);

const WEBSOCKET_SCHEMA = obj<WebSocketConfig>(
  {
    enabled: bool({ doc: 'GET requests with Upgrade: websocket are forwarded as WebSocket handshakes', default: D.websocket.enabled }),
    idleTimeout: int({ doc: 'ms without a byte in either direction before the gateway closes the connection (1001)', default: D.websocket.idleTimeout, min: 1000, max: 86_400_000 }),
    maxConnections: int({ doc: 'open connections of this route per data plane; a handshake beyond it gets 503', default: D.websocket.maxConnections, min: 1, max: 100_000 }),
  },
  { doc: 'WebSocket proxying; true or false is the shorthand for enabled', shorthand: { into: 'enabled', applies: (raw) => typeof raw === 'boolean' } },
);

const HEADERS_SCHEMA = obj<HeadersConfig>(
  { request: headerRules('changes to the upstream request headers'), response: headerRules('changes to the response headers') },
  { doc: 'header changes; each side a name -> value map or { set, remove }' },
);

export const ROUTE_SCHEMA = obj<Route>(
  {
    id: str({ doc: 'unique; generated (rt_...) when omitted; [A-Za-z0-9_-]{1,64} (decision 12)', required: true, check: routeIdCheck }),
    path: str({ doc: 'pattern: /exact, /prefix/*, /api/*/resource (decision 8)', required: true, check: routePathCheck }),
    upstream: str({ doc: 'absolute http(s) URL; in proxy.yml also an upstream name', required: true, check: httpUrlCheck }),
    methods: methodList('methods matched; omitted = all; HEAD also matches GET'),
    enabled: bool({ doc: 'route serves traffic', default: D.enabled }),
    description: str({ doc: 'free text', default: D.description, maxLength: 1000 }),
    priority: int({ doc: 'higher matches first (decision 14)', default: D.priority, min: 0, max: 1000 }),
    tags: arr({ doc: 'labels for listing and search', items: str({ doc: 'tag', minLength: 1, maxLength: 64 }), default: D.tags, unique: true }),
    stripPath: bool({ doc: 'false forwards the whole path after the upstream path (decision 15)', default: D.stripPath }),
    timeout: TIMEOUT_SCHEMA,
    rateLimit: RATE_LIMIT_SCHEMA,
    headers: HEADERS_SCHEMA,
    healthCheck: HEALTH_CHECK_SCHEMA,
    retry: RETRY_SCHEMA,
    circuitBreaker: CIRCUIT_BREAKER_SCHEMA,
    transform: TRANSFORM_SCHEMA,
    cache: CACHE_SCHEMA,
    auth: AUTH_SCHEMA,
    ipRestriction: IP_RESTRICTION_SCHEMA,
    cors: CORS_SCHEMA,
    websocket: WEBSOCKET_SCHEMA,
    upstreamName: str({ doc: 'server-set: the proxy.yml upstream the route names', check: nameCheck, readOnly: true }),
    source: str({ doc: 'server-set: api or file (decision 13)', oneOf: ['api', 'file'], readOnly: true }),
    createdAt: str({ doc: 'server-set ISO 8601 (decision 4)', check: isoDateTimeCheck, readOnly: true }),
    updatedAt: str({ doc: 'server-set ISO 8601', check: isoDateTimeCheck, readOnly: true }),
  },
  { doc: 'route' },
);
