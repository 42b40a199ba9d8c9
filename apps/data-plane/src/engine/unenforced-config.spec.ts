import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateProxyConfig, type ProxyConfig } from '@gateway/route-model';
import { POLICY_FACTORIES } from '../policies/policy-registry';
import { unenforcedConfigErrors } from './unenforced-config';

function config(doc: Record<string, unknown>): ProxyConfig {
  const result = validateProxyConfig({ version: '1.0.0', ...doc });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

test('resilience blocks are enforced: rate limits, breakers, health checks, retries, trusted proxies', () => {
  const c = config({
    proxy: { trustedProxies: ['10.0.0.0/8'] },
    upstreams: [{ name: 'u', url: 'http://127.0.0.1:1', circuitBreaker: { enabled: true }, healthCheck: { enabled: true } }],
    routes: [
      {
        path: '/a',
        upstream: 'u',
        rateLimit: { enabled: true, max: 10, windowMs: 1000 },
        circuitBreaker: { enabled: true },
        healthCheck: { enabled: true },
        retry: { enabled: true, attempts: 2, backoff: 'exponential' },
      },
    ],
  });
  assert.deepEqual(unenforcedConfigErrors(c, POLICY_FACTORIES), []);
});

test('a plain configuration has nothing unenforced (timeouts and default retries included)', () => {
  const c = config({ routes: [{ path: '/a/*', upstream: 'http://127.0.0.1:1', timeout: { request: 1000, connect: 500 } }] });
  assert.deepEqual(unenforcedConfigErrors(c, POLICY_FACTORIES), []);
});

test('every block this data plane would ignore is refused with its field', () => {
  const c = config({
    upstreams: [{ name: 'u', url: 'http://127.0.0.1:1', circuitBreaker: { enabled: true, failureThreshold: 3 } }],
    routes: [
      { path: '/a', upstream: 'u', auth: { enabled: true, type: 'jwt', jwt: { secretEnv: 'ROUTE_JWT_SECRET' } } },
      { path: '/b', upstream: 'u', rateLimit: { enabled: true, max: 10, windowMs: 1000 }, cache: { enabled: true } },
      { path: '/c', upstream: 'u', rateLimit: { enabled: false, max: 10, windowMs: 1000 } },
    ],
  });
  // Measured against a registry without the edge policies (auth, cache): the rule itself.
  const withoutEdge = POLICY_FACTORIES.filter((f) => f.configures !== 'auth' && f.configures !== 'cache');
  const errors = unenforcedConfigErrors(c, withoutEdge);
  assert.deepEqual(errors.map((e) => e.field).sort(), ['routes[0].auth', 'routes[1].cache']);
  assert.deepEqual(unenforcedConfigErrors(c, POLICY_FACTORIES), []);
  assert.ok(errors.every((e) => e.code === 'NOT_SUPPORTED' && /not enforced/.test(e.message)));
});

test('a policy that declares the field makes it acceptable', () => {
  const c = config({ routes: [{ path: '/a', upstream: 'http://127.0.0.1:1', cache: { enabled: true } }] });
  const withCache = [...POLICY_FACTORIES.filter((f) => f.configures !== 'cache'), { key: 'cache', scope: 'route' as const, order: 1, configures: 'cache' as const, create: () => null }];
  assert.deepEqual(unenforcedConfigErrors(c, withCache), []);
  assert.equal(unenforcedConfigErrors(c, POLICY_FACTORIES.filter((f) => f.configures !== 'cache')).length, 1);
});

test('the authentication block is accepted once a policy enforces auth', () => {
  const c = config({ authentication: { enabled: true, provider: 'acme', apiUrl: 'http://127.0.0.1:1' }, routes: [{ path: '/a', upstream: 'http://127.0.0.1:1' }] });
  assert.deepEqual(unenforcedConfigErrors(c, POLICY_FACTORIES), []);
  assert.deepEqual(unenforcedConfigErrors(c, POLICY_FACTORIES.filter((f) => f.configures !== 'auth')).map((e) => e.field), ['authentication']);
});
