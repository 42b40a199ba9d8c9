import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalRouteInput } from './breaker-threshold';
import { normalizeRoute, type NormalizeOptions } from './normalize-route';
import { ROUTE_DEFAULTS } from './route-defaults';
import { ROUTE_ID_PATTERN } from './route-id';
import type { FieldError, Route } from './route.types';
import { validateRoute } from './validate-route';

const UPSTREAM = 'http://backend.local:9000/v1';

function ok(input: unknown, options: NormalizeOptions = {}): Route {
  const result = normalizeRoute(input, { generateId: () => 'rt_fixed', ...options });
  if (!result.ok) assert.fail(`expected a valid route, got ${JSON.stringify(result.errors)}`);
  return result.value;
}

function errors(input: unknown, options: NormalizeOptions = {}): FieldError[] {
  const result = normalizeRoute(input, { generateId: () => 'rt_fixed', ...options });
  if (result.ok) assert.fail(`expected errors, got ${JSON.stringify(result.value)}`);
  return result.errors;
}

/** The only error, asserted to be alone. */
function onlyError(input: unknown, options: NormalizeOptions = {}): FieldError {
  const found = errors(input, options);
  assert.equal(found.length, 1, JSON.stringify(found));
  return found[0]!;
}

const base = { path: '/api/*', upstream: UPSTREAM };

describe('normalizeRoute: variant A and defaults', () => {
  it('fills every default and keeps the given fields', () => {
    assert.deepEqual(ok(base), {
      id: 'rt_fixed',
      path: '/api/*',
      upstream: UPSTREAM,
      enabled: true,
      description: '',
      priority: 50,
      tags: [],
      stripPath: true,
      timeout: { request: 5000 },
      retry: { enabled: true, attempts: 3, backoff: 'exponential', initialDelay: 100, maxDelay: 2000, multiplier: 2, jitter: true },
    });
  });

  it('takes its defaults from ROUTE_DEFAULTS and never shares their arrays', () => {
    const a = ok(base);
    assert.equal(a.priority, ROUTE_DEFAULTS.priority);
    assert.equal(a.timeout.request, ROUTE_DEFAULTS.timeout.request);
    a.tags.push('mutated');
    assert.deepEqual(ok(base).tags, []);
    assert.ok(Object.isFrozen(ROUTE_DEFAULTS.circuitBreaker.errorStatuses));
  });

  it('keeps a full variant A route (spec 2.1) and completes its blocks', () => {
    const route = ok({
      id: 'users-api',
      path: '/users/*',
      upstream: 'https://users.internal',
      methods: ['GET', 'POST'],
      enabled: false,
      description: 'Users',
      priority: 100,
      tags: ['users', 'v1'],
      rateLimit: { enabled: true, max: 10, windowMs: 1000 },
      headers: { request: { 'X-Request-Id': '${requestId}' }, response: { set: { 'X-Served-By': 'gw' }, remove: ['Server'] } },
      healthCheck: { enabled: true, url: 'https://users.internal/health', interval: 30000, timeout: 5000, unhealthyThreshold: 3, healthyThreshold: 2 },
      timeout: { connect: 1000, request: 3000 },
      retry: { enabled: true, attempts: 2, backoff: 'exponential' },
      circuitBreaker: { enabled: true, threshold: 50, timeout: 30000, resetTimeout: 60000, volumeThreshold: 10 },
      transform: { request: { query: { source: 'gw' }, headers: { add: { 'X-A': '1' }, remove: ['Cookie'] } }, response: { body: { exclude: ['password'] } } },
      cache: { enabled: true, ttl: 60000, varyBy: ['path'], cacheableStatuses: [200] },
      auth: { enabled: true, type: 'jwt', jwt: { secretEnv: 'USERS_JWT_SECRET', algorithms: ['RS256'], validateIssuer: true, issuer: 'idp', validateExpiration: true } },
    });
    assert.equal(route.id, 'users-api');
    assert.deepEqual(route.methods, ['GET', 'POST']);
    assert.equal(route.enabled, false);
    assert.deepEqual(route.rateLimit, { enabled: true, max: 10, windowMs: 1000, strategy: 'token-bucket', scope: 'ip' });
    assert.deepEqual(route.headers, { request: { set: { 'X-Request-Id': '${requestId}' } }, response: { set: { 'X-Served-By': 'gw' }, remove: ['Server'] } });
    assert.deepEqual(route.healthCheck?.expectedStatus, 200);
    assert.deepEqual(route.timeout, { connect: 1000, request: 3000 });
    assert.deepEqual(route.retry, { enabled: true, attempts: 2, backoff: 'exponential', initialDelay: 100, maxDelay: 2000, multiplier: 2, jitter: true });
    assert.deepEqual(route.circuitBreaker, { enabled: true, threshold: 50, timeout: 30000, resetTimeout: 60000, volumeThreshold: 10, errorStatuses: [500, 502, 503, 504] });
    assert.deepEqual(route.cache, { enabled: true, ttl: 60000, varyBy: ['path'], cacheableStatuses: [200], cacheAuthorized: false });
    assert.deepEqual(route.auth?.jwt, { secretEnv: 'USERS_JWT_SECRET', algorithms: ['RS256'], validateIssuer: true, issuer: 'idp', validateExpiration: true });
  });

  it('fills a block given empty from its defaults', () => {
    const route = ok({ ...base, rateLimit: {}, circuitBreaker: {}, healthCheck: {}, cache: {} });
    assert.deepEqual(route.rateLimit, { enabled: true, max: 100, windowMs: 60000, strategy: 'token-bucket', scope: 'ip' });
    assert.deepEqual(route.circuitBreaker, { enabled: true, threshold: 50, timeout: 30000, volumeThreshold: 10, errorStatuses: [500, 502, 503, 504] });
    assert.deepEqual(route.healthCheck, { enabled: true, interval: 30000, timeout: 5000, unhealthyThreshold: 3, healthyThreshold: 2, expectedStatus: 200 });
    assert.deepEqual(route.cache, { enabled: true, ttl: 300000, varyBy: ['method', 'path', 'query'], cacheableStatuses: [200, 301, 404], cacheAuthorized: false });
  });

  it('reads websocket: true as the enabled shorthand and fills its limits', () => {
    assert.deepEqual(ok({ ...base, websocket: true }).websocket, { enabled: true, idleTimeout: 60000, maxConnections: 1000 });
    assert.deepEqual(ok({ ...base, websocket: { maxConnections: 5 } }).websocket, { enabled: true, idleTimeout: 60000, maxConnections: 5 });
    assert.deepEqual(ok({ ...base, websocket: false }).websocket, { enabled: false, idleTimeout: 60000, maxConnections: 1000 });
    assert.equal(ok(base).websocket, undefined);
  });

  it('generates a URL-safe id when none is given', () => {
    const route = normalizeRoute(base);
    assert.ok(route.ok);
    assert.match(route.value.id, /^rt_[A-Za-z0-9_-]{16}$/);
    assert.match(route.value.id, ROUTE_ID_PATTERN);
  });

  it('upper-cases and de-duplicates methods', () => {
    assert.deepEqual(ok({ ...base, methods: ['get', 'GET', 'post'] }).methods, ['GET', 'POST']);
  });

  it('treats null as absent (YAML empty keys)', () => {
    const route = ok({ ...base, description: null, timeout: null, tags: null });
    assert.equal(route.description, '');
    assert.deepEqual(route.timeout, { request: 5000 });
    assert.deepEqual(route.tags, []);
  });

  it('is idempotent: a normalized route normalizes to itself (a threshold above 1 %; canonicalRouteInput covers the rest)', () => {
    const first = ok({ ...base, target: undefined, timeout: 2500, retryAttempts: 0, rateLimiting: { enabled: true, requests: 5, window: 2 }, circuitBreaker: { threshold: 0.25 }, headers: { request: { 'X-A': 'b' } } });
    assert.deepEqual(ok(first), first);
  });

  it('sets source from the options over the input', () => {
    assert.equal(ok({ ...base, source: 'file' }, { source: 'api' }).source, 'api');
    assert.equal(ok(base).source, undefined);
  });

  it('accepts ISO 8601 timestamps and refuses others', () => {
    assert.equal(ok({ ...base, createdAt: '2024-01-02T03:04:05.678Z' }).createdAt, '2024-01-02T03:04:05.678Z');
    assert.deepEqual(onlyError({ ...base, createdAt: 1704164645000 }), { field: 'createdAt', message: 'createdAt must be a string', code: 'VALIDATION_ERROR' });
    assert.deepEqual(onlyError({ ...base, updatedAt: '2024-13-45' }), { field: 'updatedAt', message: 'updatedAt must be an ISO 8601 date-time', code: 'VALIDATION_ERROR' });
  });
});

describe('normalizeRoute: variant B (decision 6)', () => {
  it('maps target, timeout, retryAttempts and rateLimiting onto variant A', () => {
    const route = ok({
      id: 'b1',
      path: '/orders',
      target: 'http://orders:8080',
      enabled: true,
      description: 'Orders',
      timeout: 3000,
      retryAttempts: 2,
      circuitBreaker: { enabled: true, threshold: 0.5, timeout: 30000 },
      rateLimiting: { enabled: true, requests: 100, window: 60 },
    });
    assert.equal(route.upstream, 'http://orders:8080');
    assert.deepEqual(route.timeout, { request: 3000 });
    assert.equal(route.retry?.attempts, 2);
    assert.equal(route.retry?.enabled, true);
    assert.deepEqual(route.rateLimit, { enabled: true, max: 100, windowMs: 60000, strategy: 'token-bucket', scope: 'ip' });
    assert.equal(route.circuitBreaker?.threshold, 50);
    assert.equal(route.circuitBreaker?.volumeThreshold, 10);
    assert.equal((route as unknown as Record<string, unknown>).target, undefined);
  });

  it('turns retries off for retryAttempts 0', () => {
    assert.deepEqual(ok({ ...base, retryAttempts: 0 }).retry?.enabled, false);
  });

  it('accepts upstream and target when they agree', () => {
    assert.equal(ok({ ...base, target: UPSTREAM }).upstream, UPSTREAM);
  });

  it('refuses upstream and target that differ, on field target', () => {
    assert.deepEqual(onlyError({ ...base, target: 'http://other' }), { field: 'target', message: 'target conflicts with upstream; give one of them', code: 'VALIDATION_ERROR' });
  });

  it('refuses retryAttempts that contradicts retry.attempts, and rateLimiting next to rateLimit', () => {
    assert.equal(onlyError({ ...base, retryAttempts: 1, retry: { attempts: 2 } }).field, 'retryAttempts');
    assert.equal(ok({ ...base, retryAttempts: 2, retry: { attempts: 2 } }).retry?.attempts, 2);
    assert.equal(onlyError({ ...base, rateLimiting: { requests: 1 }, rateLimit: { max: 1 } }).field, 'rateLimiting');
  });

  it('reports variant B problems under the names the client used', () => {
    const found = errors({ path: '/x', target: 'not a url', timeout: 50, retryAttempts: 11, rateLimiting: { requests: 0, window: 0 } });
    assert.deepEqual(
      found.map((e) => [e.field, e.message]),
      [
        ['rateLimiting.requests', 'rateLimiting.requests must be greater than 0'],
        ['rateLimiting.window', 'rateLimiting.window must be at least 0.001'],
        ['target', 'Invalid URL'],
        ['timeout', 'timeout must be between 100 and 60000'],
        ['retryAttempts', 'retryAttempts must be between 0 and 10'],
      ],
    );
  });

  it('reads circuitBreaker.threshold in (0, 1] as a fraction and (1, 100] as a percent, stored as percent (decision 7)', () => {
    const threshold = (t: number): number | undefined => ok({ ...base, circuitBreaker: { threshold: t } }).circuitBreaker?.threshold;
    assert.equal(threshold(0.5), 50);
    assert.equal(threshold(1), 100);
    assert.equal(threshold(0.07), 7);
    assert.equal(threshold(0.01), 1);
    assert.equal(threshold(0.005), 0.5);
    assert.equal(threshold(0.0001), 0.01);
    assert.equal(threshold(1e-9), 1e-7, 'however small, a positive fraction stays a positive percent');
    assert.equal(threshold(1.5), 1.5);
    assert.equal(threshold(100), 100);
    for (const bad of [0, -1, -0.5, 100.5]) {
      assert.deepEqual(onlyError({ ...base, circuitBreaker: { threshold: bad } }), {
        field: 'circuitBreaker.threshold',
        message: 'circuitBreaker.threshold must be a fraction in (0, 1] or a percent in (1, 100]',
        code: 'VALIDATION_ERROR',
      });
    }
  });

  it('canonicalRouteInput spells a stored route so that normalizing it gives the route back, sub-1 % thresholds included', () => {
    for (const t of [1e-9, 0.0001, 0.005, 0.01, 0.0333, 0.07, 0.5, 1, 1.5, 33.3, 100]) {
      const stored = ok({ ...base, circuitBreaker: { threshold: t } });
      assert.deepEqual(ok(canonicalRouteInput(stored)), stored, `threshold ${t}`);
      assert.deepEqual(validateRoute(stored), [], `stored threshold ${String(stored.circuitBreaker?.threshold)} is canonical`);
    }
    const stored = ok({ ...base, circuitBreaker: { threshold: 0.005 } });
    canonicalRouteInput(stored);
    assert.equal(stored.circuitBreaker?.threshold, 0.5, 'the stored route is not changed');
  });
});

describe('normalizeRoute: proxy.yml form', () => {
  const upstreams = [
    { name: 'backend', url: 'http://127.0.0.1:9000/base' },
    { name: 'other', url: 'https://other.example' },
  ];

  it('resolves an upstream name to its URL and records the name', () => {
    const route = ok({ path: '/api/*', upstream: 'backend' }, { upstreams, source: 'file' });
    assert.equal(route.upstream, 'http://127.0.0.1:9000/base');
    assert.equal(route.upstreamName, 'backend');
    assert.equal(route.source, 'file');
  });

  it('accepts a URL in place of a name', () => {
    const route = ok({ path: '/s', upstream: 'http://127.0.0.1:9000/health' }, { upstreams });
    assert.equal(route.upstream, 'http://127.0.0.1:9000/health');
    assert.equal(route.upstreamName, undefined);
  });

  it('resolves a name given as target too', () => {
    assert.equal(ok({ path: '/t', target: 'other' }, { upstreams }).upstream, 'https://other.example');
  });

  it('reports an unknown name', () => {
    assert.deepEqual(onlyError({ path: '/api/*', upstream: 'nope' }, { upstreams, fieldPrefix: 'routes[1]' }), {
      field: 'routes[1].upstream',
      message: "Unknown upstream 'nope' (not a name under upstreams nor a URL)",
      code: 'UNKNOWN_UPSTREAM',
    });
  });

  it('without upstreams (the API), a name is just an invalid URL', () => {
    assert.deepEqual(onlyError({ path: '/api/*', upstream: 'backend' }), { field: 'upstream', message: 'Invalid URL', code: 'INVALID_URL' });
  });

  it('accepts the proxy.yml auth form (spec 5.4)', () => {
    assert.deepEqual(ok({ ...base, auth: { required: true, provider: 'acme', allowAnonymous: false } }).auth, {
      enabled: true,
      required: true,
      provider: 'acme',
      allowAnonymous: false,
    });
  });
});

describe('normalizeRoute: headers', () => {
  it('accepts the map form of spec 2.1 and the { set, remove } form', () => {
    assert.deepEqual(ok({ ...base, headers: { request: { 'X-Tenant': 'a', 'X-Id': '${requestId}' } } }).headers, {
      request: { set: { 'X-Tenant': 'a', 'X-Id': '${requestId}' } },
    });
    assert.deepEqual(ok({ ...base, headers: { response: { remove: ['Server', 'X-Powered-By'] } } }).headers, { response: { remove: ['Server', 'X-Powered-By'] } });
  });

  it('treats a header literally named "set" with a string value as the map form', () => {
    assert.deepEqual(ok({ ...base, headers: { request: { set: 'x' } } }).headers, { request: { set: { set: 'x' } } });
  });

  it('refuses header values with CR or LF and invalid header names', () => {
    const found = errors({ ...base, headers: { request: { 'X-A': 'a\r\nInjected: 1', 'Bad Name': 'x' } } });
    assert.deepEqual(
      found.map((e) => [e.field, e.message]),
      [
        ['headers.request.X-A', 'headers.request.X-A may contain only printable ASCII, space and tab (no CR, LF or other control or non-ASCII characters)'],
        ['headers.request["Bad Name"]', 'headers.request["Bad Name"] is not a valid header name'],
      ],
    );
  });

  it('refuses header values node would refuse to send (non-ASCII, DEL, line separators) wherever a header value is configured', () => {
    for (const value of ['price \u20ac', 'a\u2028b', 'a\x7fb', 'caf\u00e9']) {
      const found = errors({
        ...base,
        headers: { response: { set: { 'X-A': value } } },
        transform: { request: { headers: { add: { 'X-B': value } } } },
      });
      assert.deepEqual(
        found.map((e) => e.field),
        ['headers.response.set.X-A', 'transform.request.headers.add.X-B'],
        JSON.stringify(value),
      );
    }
    assert.deepEqual(ok({ ...base, headers: { response: { set: { 'X-A': 'tab\tand ~visible~ ASCII ${requestId}' } } } }).headers, { response: { set: { 'X-A': 'tab\tand ~visible~ ASCII ${requestId}' } } });
  });
});

describe('normalizeRoute: auth secrets', () => {
  it('refuses auth.jwt.secret and says to use secretEnv', () => {
    const found = errors({ ...base, auth: { type: 'jwt', jwt: { secret: 'hunter2', secretEnv: 'ROUTE_JWT_SECRET' } } });
    assert.equal(found.length, 1);
    assert.equal(found[0]!.field, 'auth.jwt.secret');
    assert.match(found[0]!.message, /secretEnv/);
    assert.doesNotMatch(found[0]!.message, /hunter2/);
  });

  it('requires secretEnv for type jwt, an issuer when validated, users for type basic', () => {
    assert.deepEqual(
      errors({ ...base, auth: { type: 'jwt', jwt: { validateIssuer: true } } }).map((e) => e.message),
      ['auth.jwt.secretEnv is required when auth.type is jwt', 'auth.jwt.issuer is required when auth.jwt.validateIssuer is true'],
    );
    assert.equal(onlyError({ ...base, auth: { type: 'basic' } }).message, 'auth.basic.users is required when auth.type is basic');
    assert.equal(ok({ ...base, auth: { enabled: false, type: 'jwt' } }).auth?.enabled, false);
  });

  it("refuses a secretEnv naming one of the gateway's own secrets, whatever its case, with the field named", () => {
    // A name that only contains one of them is the route's own.
    const own = ok({ ...base, auth: { type: 'jwt', jwt: { secretEnv: 'ROUTE_JWT_SECRET' } } });
    assert.equal(own.auth?.jwt?.secretEnv, 'ROUTE_JWT_SECRET');
    for (const name of ['JWT_SECRET', 'API_KEY_SECRET', 'CLUSTER_TOKEN', 'CLUSTER_TOKEN_PREVIOUS', 'ADMIN_PASSWORD', 'jwt_secret']) {
      const found = onlyError({ ...base, auth: { type: 'jwt', jwt: { secretEnv: name } } });
      assert.equal(found.field, 'auth.jwt.secretEnv', name);
      assert.equal(found.code, 'VALIDATION_ERROR', name);
      assert.match(found.message, new RegExp(`may not name ${name}: it is one of the gateway's own secrets`));
      // validateRoute (stored and cluster routes) holds the same rule.
      assert.deepEqual(validateRoute({ ...own, auth: { ...own.auth!, jwt: { ...own.auth!.jwt!, secretEnv: name } } }).map((e) => e.field), ['auth.jwt.secretEnv'], name);
    }
  });

  it('refuses the none algorithm', () => {
    assert.equal(onlyError({ ...base, auth: { type: 'jwt', jwt: { secretEnv: 'S', algorithms: ['none'] } } }).field, 'auth.jwt.algorithms[0]');
  });
});

describe('normalizeRoute: messages and codes', () => {
  const cases: Array<[string, Record<string, unknown>, FieldError]> = [
    ['path without /', { path: 'api' }, { field: 'path', message: 'Invalid path format', code: 'INVALID_PATH' }],
    ['path with a space', { path: '/a b' }, { field: 'path', message: 'Invalid path format', code: 'INVALID_PATH' }],
    ['path with an empty segment', { path: '/a//b' }, { field: 'path', message: 'Invalid path format', code: 'INVALID_PATH' }],
    ['path with a dot segment', { path: '/a/../b' }, { field: 'path', message: 'Invalid path format', code: 'INVALID_PATH' }],
    ['upstream ftp', { upstream: 'ftp://host' }, { field: 'upstream', message: 'Invalid URL', code: 'INVALID_URL' }],
    ['upstream relative', { upstream: '/relative' }, { field: 'upstream', message: 'Invalid URL', code: 'INVALID_URL' }],
    ['upstream without //', { upstream: 'http:host' }, { field: 'upstream', message: 'Invalid URL', code: 'INVALID_URL' }],
    ['upstream with a query', { upstream: 'http://h/?a=1' }, { field: 'upstream', message: 'Invalid URL (an upstream URL carries no query or fragment)', code: 'INVALID_URL' }],
    ['upstream with credentials', { upstream: 'http://u:p@h' }, { field: 'upstream', message: 'Invalid URL (credentials do not belong in the URL)', code: 'INVALID_URL' }],
    ['timeout.request low', { timeout: { request: 99 } }, { field: 'timeout.request', message: 'timeout.request must be between 100 and 60000', code: 'VALIDATION_ERROR' }],
    ['timeout.request high', { timeout: { request: 60001 } }, { field: 'timeout.request', message: 'timeout.request must be between 100 and 60000', code: 'VALIDATION_ERROR' }],
    ['timeout.request negative', { timeout: { request: -5 } }, { field: 'timeout.request', message: 'timeout.request must be between 100 and 60000', code: 'VALIDATION_ERROR' }],
    ['timeout.connect', { timeout: { connect: 50 } }, { field: 'timeout.connect', message: 'timeout.connect must be between 100 and 60000', code: 'VALIDATION_ERROR' }],
    ['retry.attempts', { retry: { attempts: 11 } }, { field: 'retry.attempts', message: 'retry.attempts must be between 0 and 10', code: 'VALIDATION_ERROR' }],
    ['rateLimit.max 0', { rateLimit: { max: 0 } }, { field: 'rateLimit.max', message: 'rateLimit.max must be greater than 0', code: 'VALIDATION_ERROR' }],
    ['rateLimit.max fraction', { rateLimit: { max: 1.5 } }, { field: 'rateLimit.max', message: 'rateLimit.max must be an integer', code: 'VALIDATION_ERROR' }],
    ['rateLimit.windowMs', { rateLimit: { windowMs: 0 } }, { field: 'rateLimit.windowMs', message: 'rateLimit.windowMs must be at least 1', code: 'VALIDATION_ERROR' }],
    ['rateLimit.strategy', { rateLimit: { strategy: 'magic' } }, { field: 'rateLimit.strategy', message: 'rateLimit.strategy must be one of: token-bucket, fixed-window, sliding-window, leaky-bucket', code: 'VALIDATION_ERROR' }],
    ['rateLimit.scope', { rateLimit: { scope: 'planet' } }, { field: 'rateLimit.scope', message: 'rateLimit.scope must be one of: ip, user, apiKey, route', code: 'VALIDATION_ERROR' }],
    ['priority', { priority: 1001 }, { field: 'priority', message: 'priority must be between 0 and 1000', code: 'VALIDATION_ERROR' }],
    ['priority type', { priority: '5' }, { field: 'priority', message: 'priority must be an integer', code: 'VALIDATION_ERROR' }],
    ['healthCheck.interval', { healthCheck: { interval: 0 } }, { field: 'healthCheck.interval', message: 'healthCheck.interval must be greater than 0', code: 'VALIDATION_ERROR' }],
    ['healthCheck.timeout', { healthCheck: { timeout: -1 } }, { field: 'healthCheck.timeout', message: 'healthCheck.timeout must be greater than 0', code: 'VALIDATION_ERROR' }],
    ['healthCheck thresholds', { healthCheck: { unhealthyThreshold: 0 } }, { field: 'healthCheck.unhealthyThreshold', message: 'healthCheck.unhealthyThreshold must be at least 1', code: 'VALIDATION_ERROR' }],
    ['healthCheck timing', { healthCheck: { interval: 1000, timeout: 2000 } }, { field: 'healthCheck.timeout', message: 'healthCheck.timeout must not exceed healthCheck.interval', code: 'VALIDATION_ERROR' }],
    ['volumeThreshold', { circuitBreaker: { volumeThreshold: 0 } }, { field: 'circuitBreaker.volumeThreshold', message: 'circuitBreaker.volumeThreshold must be at least 1', code: 'VALIDATION_ERROR' }],
    ['status range', { circuitBreaker: { errorStatuses: [500, 99] } }, { field: 'circuitBreaker.errorStatuses[1]', message: 'circuitBreaker.errorStatuses[1] must be between 100 and 599', code: 'VALIDATION_ERROR' }],
    ['method enum', { methods: ['GET', 'FETCH'] }, { field: 'methods[1]', message: 'methods[1] must be one of: GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS', code: 'VALIDATION_ERROR' }],
    ['methods empty', { methods: [] }, { field: 'methods', message: 'methods must not be empty', code: 'VALIDATION_ERROR' }],
    ['enabled type', { enabled: 'yes' }, { field: 'enabled', message: 'enabled must be a boolean', code: 'VALIDATION_ERROR' }],
    ['tags type', { tags: 'a' }, { field: 'tags', message: 'tags must be an array', code: 'VALIDATION_ERROR' }],
    ['tag item type', { tags: ['a', 3] }, { field: 'tags[1]', message: 'tags[1] must be a string', code: 'VALIDATION_ERROR' }],
    ['description type', { description: 5 }, { field: 'description', message: 'description must be a string', code: 'VALIDATION_ERROR' }],
    ['retry type', { retry: true }, { field: 'retry', message: 'retry must be an object', code: 'VALIDATION_ERROR' }],
    ['retry delays', { retry: { initialDelay: 500, maxDelay: 100 } }, { field: 'retry.maxDelay', message: 'retry.maxDelay must be at least retry.initialDelay', code: 'VALIDATION_ERROR' }],
    ['id pattern', { id: 'has space' }, { field: 'id', message: "id must be 1-64 letters, digits, '_' or '-'", code: 'VALIDATION_ERROR' }],
    ['id too long', { id: 'a'.repeat(65) }, { field: 'id', message: "id must be 1-64 letters, digits, '_' or '-'", code: 'VALIDATION_ERROR' }],
    ['websocket type', { websocket: 'yes' }, { field: 'websocket', message: 'websocket must be an object', code: 'VALIDATION_ERROR' }],
    ['websocket limit', { websocket: { enabled: true, maxConnections: 0 } }, { field: 'websocket.maxConnections', message: 'websocket.maxConnections must be between 1 and 100000', code: 'VALIDATION_ERROR' }],
    ['websocket idle', { websocket: { idleTimeout: 10 } }, { field: 'websocket.idleTimeout', message: 'websocket.idleTimeout must be between 1000 and 86400000', code: 'VALIDATION_ERROR' }],
    ['timeout idle', { timeout: { request: 1000, idle: 5 } }, { field: 'timeout.idle', message: 'timeout.idle must be between 100 and 3600000', code: 'VALIDATION_ERROR' }],
    ['unknown top-level field', { colour: 'red' }, { field: 'colour', message: 'Unknown field', code: 'VALIDATION_ERROR' }],
    ['unknown nested field', { timeout: { request: 1000, read: 5 } }, { field: 'timeout.read', message: 'Unknown field', code: 'VALIDATION_ERROR' }],
    ['unknown deep field', { transform: { response: { body: { include: ['a'] } } } }, { field: 'transform.response.body.include', message: 'Unknown field', code: 'VALIDATION_ERROR' }],
    ['unknown field in auth.jwt', { auth: { jwt: { secretEnv: 'S', audience: 'x' } } }, { field: 'auth.jwt.audience', message: 'Unknown field', code: 'VALIDATION_ERROR' }],
    ['prototype key', JSON.parse('{"__proto__": {"enabled": false}}') as Record<string, unknown>, { field: '__proto__', message: 'Unknown field', code: 'VALIDATION_ERROR' }],
  ];
  for (const [name, patch, expected] of cases) {
    it(name, () => assert.deepEqual(onlyError({ ...base, ...patch }), expected));
  }

  it('accepts the bounds themselves', () => {
    const route = ok({ ...base, priority: 0, timeout: { connect: 100, request: 60000 }, retry: { attempts: 10 }, rateLimit: { max: 1, windowMs: 1 } });
    assert.deepEqual([route.priority, route.timeout.connect, route.timeout.request, route.retry?.attempts, route.rateLimit?.max], [0, 100, 60000, 10, 1]);
    assert.equal(ok({ ...base, path: '/' }).path, '/');
    assert.equal(ok({ ...base, path: '/v1.0/items_x-y/*/z' }).path, '/v1.0/items_x-y/*/z');
  });

  it('requires path and upstream', () => {
    assert.deepEqual(errors({}), [
      { field: 'path', message: 'path is required', code: 'VALIDATION_ERROR' },
      { field: 'upstream', message: 'upstream is required', code: 'VALIDATION_ERROR' },
    ]);
  });

  it('refuses a body that is not an object', () => {
    assert.deepEqual(errors([base]), [{ field: '(root)', message: 'route must be an object', code: 'VALIDATION_ERROR' }]);
    assert.deepEqual(errors('x', { fieldPrefix: 'routes[0]' }), [{ field: 'routes[0]', message: 'route must be an object', code: 'VALIDATION_ERROR' }]);
  });

  it('prefixes every field, never the message', () => {
    assert.deepEqual(onlyError({ ...base, timeout: { request: 1 } }, { fieldPrefix: 'routes[3]' }), {
      field: 'routes[3].timeout.request',
      message: 'timeout.request must be between 100 and 60000',
      code: 'VALIDATION_ERROR',
    });
  });

  it('returns every error at once', () => {
    const found = errors({
      path: 'no-slash',
      upstream: 'nope',
      priority: -1,
      timeout: { request: 10, connect: 70000 },
      retry: { attempts: -1 },
      rateLimit: { max: 0, strategy: 'x' },
      extra: true,
      auth: { jwt: { secret: 's' } },
    });
    assert.deepEqual(
      found.map((e) => `${e.field}:${e.code}`),
      [
        'path:INVALID_PATH',
        'upstream:INVALID_URL',
        'priority:VALIDATION_ERROR',
        'timeout.connect:VALIDATION_ERROR',
        'timeout.request:VALIDATION_ERROR',
        'rateLimit.max:VALIDATION_ERROR',
        'rateLimit.strategy:VALIDATION_ERROR',
        'retry.attempts:VALIDATION_ERROR',
        'auth.jwt.secret:VALIDATION_ERROR',
        'extra:VALIDATION_ERROR',
      ],
    );
  });
});
