import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeRoute } from './normalize-route';
import type { Route } from './route.types';
import { validateRoute } from './validate-route';

function canonical(input: Record<string, unknown>): Route {
  const result = normalizeRoute({ path: '/api/*', upstream: 'http://backend:9000', ...input }, { generateId: () => 'r1' });
  if (!result.ok) assert.fail(JSON.stringify(result.errors));
  return result.value;
}

/** A canonical route with some fields replaced by values a typed caller could still produce by mistake. */
function broken(patch: Record<string, unknown>): Route {
  return { ...canonical({}), ...patch } as unknown as Route;
}

describe('validateRoute', () => {
  it('accepts what normalizeRoute produces', () => {
    assert.deepEqual(validateRoute(canonical({})), []);
    const full = canonical({
      methods: ['GET'],
      rateLimit: { max: 5 },
      healthCheck: {},
      circuitBreaker: { threshold: 0.5 },
      cache: {},
      headers: { request: { 'X-A': 'b' } },
      auth: { type: 'jwt', jwt: { secretEnv: 'ROUTE_JWT_SECRET' } },
    });
    assert.deepEqual(validateRoute(full), []);
  });

  it('reports bounds, formats and codes like normalizeRoute, with the prefix on the field only', () => {
    const route = broken({ path: 'x', upstream: 'mailto:a@b', timeout: { request: 70000 }, priority: 2000 });
    assert.deepEqual(validateRoute(route, 'routes[0]'), [
      { field: 'routes[0].path', message: 'Invalid path format', code: 'INVALID_PATH' },
      { field: 'routes[0].upstream', message: 'Invalid URL', code: 'INVALID_URL' },
      { field: 'routes[0].priority', message: 'priority must be between 0 and 1000', code: 'VALIDATION_ERROR' },
      { field: 'routes[0].timeout.request', message: 'timeout.request must be between 100 and 60000', code: 'VALIDATION_ERROR' },
    ]);
  });

  it('cache stale windows: whole seconds from 0 to one day, a bad value names its field', () => {
    const withWindows = (cache: Record<string, unknown>): Route => broken({ cache: { ...canonical({ cache: {} }).cache, ...cache } });
    assert.deepEqual(validateRoute(withWindows({ staleWhileRevalidate: 30, staleIfError: 86_400 })), []);
    assert.deepEqual(
      validateRoute(withWindows({ staleWhileRevalidate: -1, staleIfError: 86_401 })).map((e) => [e.field, e.message]),
      [
        ['cache.staleWhileRevalidate', 'cache.staleWhileRevalidate must be between 0 and 86400'],
        ['cache.staleIfError', 'cache.staleIfError must be between 0 and 86400'],
      ],
    );
    assert.deepEqual(validateRoute(withWindows({ staleIfError: 1.5 })).map((e) => e.field), ['cache.staleIfError']);
  });

  it('does not accept short forms: they are not canonical', () => {
    assert.deepEqual(
      validateRoute(broken({ timeout: 3000, target: 'http://x' })).map((e) => [e.field, e.message]),
      [
        ['timeout', 'timeout must be an object'],
        ['target', 'Unknown field'],
      ],
    );
  });

  it('reads a breaker threshold as the stored percent, (0, 100]: 0.5 is half a percent, never re-read as a fraction (decision 7)', () => {
    const withThreshold = (threshold: number): Route => broken({ circuitBreaker: { enabled: true, threshold, timeout: 1000, volumeThreshold: 1, errorStatuses: [500] } });
    assert.deepEqual(validateRoute(withThreshold(0.5)), []);
    assert.deepEqual(validateRoute(withThreshold(100)), []);
    for (const bad of [0, 100.5]) {
      assert.deepEqual(validateRoute(withThreshold(bad)).map((e) => e.field), ['circuitBreaker.threshold']);
    }
  });

  it('requires id, path and upstream but no defaulted field', () => {
    const { id: _id, enabled: _enabled, tags: _tags, ...rest } = canonical({});
    assert.deepEqual(validateRoute(rest as unknown as Route), [{ field: 'id', message: 'id is required', code: 'VALIDATION_ERROR' }]);
  });

  it('runs the cross-field rules', () => {
    assert.deepEqual(validateRoute(broken({ auth: { enabled: true, type: 'jwt' } })), [
      { field: 'auth.jwt.secretEnv', message: 'auth.jwt.secretEnv is required when auth.type is jwt', code: 'VALIDATION_ERROR' },
    ]);
  });

  it('refuses a non-object', () => {
    assert.deepEqual(validateRoute(null as unknown as Route), [{ field: '(root)', message: 'route must be an object', code: 'VALIDATION_ERROR' }]);
  });
});
