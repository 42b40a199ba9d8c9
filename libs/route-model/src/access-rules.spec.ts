import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileCorsOrigins } from './cors-origin';
import { routeMethodMask, methodBit } from './method-mask';
import { normalizeRoute } from './normalize-route';
import { validateRoute } from './validate-route';

function normalized(input: Record<string, unknown>) {
  return normalizeRoute({ path: '/api/*', upstream: 'http://backend:9000', ...input }, { generateId: () => 'r1' });
}

function errorsOf(input: Record<string, unknown>): Array<{ field: string; message: string }> {
  const result = normalized(input);
  return result.ok ? [] : result.errors.map(({ field, message }) => ({ field, message }));
}

describe('ipRestriction in the route model', () => {
  it('accepts IPv4 and IPv6 addresses and CIDRs, fills enabled, and validates back', () => {
    const result = normalized({ ipRestriction: { allow: ['10.0.0.0/8', '2001:db8::/32', '::1'], deny: ['10.1.2.3'] } });
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.value.ipRestriction, { enabled: true, allow: ['10.0.0.0/8', '2001:db8::/32', '::1'], deny: ['10.1.2.3'] });
    assert.deepEqual(validateRoute(result.value), []);
  });

  it('names the entry that is not an IP or CIDR', () => {
    const errors = errorsOf({ ipRestriction: { allow: ['10.0.0.0/8', '10.0.0.0/33'], deny: ['example.com'] } });
    assert.deepEqual(errors.map((e) => e.field).sort(), ['ipRestriction.allow[1]', 'ipRestriction.deny[0]']);
    assert.ok(errors.every((e) => /IP address or CIDR/.test(e.message)));
  });

  it('refuses an enabled block with no address at all, and a list over the bound', () => {
    assert.deepEqual(errorsOf({ ipRestriction: {} }), [{ field: 'ipRestriction', message: 'ipRestriction needs at least one address in allow or deny' }]);
    assert.deepEqual(errorsOf({ ipRestriction: { enabled: false } }), []);
    const many = Array.from({ length: 1001 }, (_, i) => `10.${i >> 8}.${i & 255}.1`);
    assert.deepEqual(errorsOf({ ipRestriction: { deny: many } }).map((e) => e.field), ['ipRestriction.deny']);
  });

  it('refuses unknown fields inside the block', () => {
    assert.deepEqual(errorsOf({ ipRestriction: { allow: ['10.0.0.1'], whitelist: ['x'] } }).map((e) => e.field), ['ipRestriction.whitelist']);
  });
});

describe('cors in the route model', () => {
  it('lower-cases origins, fills credentials false, and validates back', () => {
    const result = normalized({ cors: { origins: ['https://App.Example.com', 'https://*.example.org:8443', '*'], methods: ['get', 'POST'], maxAge: 600 } });
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.value.cors, { enabled: true, origins: ['https://app.example.com', 'https://*.example.org:8443', '*'], methods: ['GET', 'POST'], credentials: false, maxAge: 600 });
    assert.deepEqual(validateRoute(result.value), []);
  });

  it('names each bad field', () => {
    const errors = errorsOf({
      cors: { origins: ['https://app.example.com/path', 'app.example.com', 'https://a.*.example.com', 'https://x:99999'], headers: ['bad header'], maxAge: -1, methods: ['FETCH'] },
    });
    assert.deepEqual(errors.map((e) => e.field).sort(), ['cors.headers[0]', 'cors.maxAge', 'cors.methods[0]', 'cors.origins[0]', 'cors.origins[1]', 'cors.origins[2]', 'cors.origins[3]']);
    assert.deepEqual(errorsOf({ cors: {} }).map((e) => e.field), ['cors.origins']);
    assert.deepEqual(errorsOf({ cors: { origins: [] } }).map((e) => e.field), ['cors.origins']);
  });

  it('refuses credentials with origin *', () => {
    assert.deepEqual(errorsOf({ cors: { origins: ['*'], credentials: true } }), [
      { field: 'cors.credentials', message: 'cors.credentials cannot be true when cors.origins contains *; list the origins instead' },
    ]);
  });

  it('a route with CORS on also matches OPTIONS (for the preflight); without, it does not', () => {
    const route = (cors: unknown) => ({ methods: ['GET' as const], cors: cors as never });
    assert.notEqual(routeMethodMask(route({ enabled: true, origins: ['*'], credentials: false })) & methodBit('OPTIONS'), 0);
    assert.equal(routeMethodMask(route(undefined)) & methodBit('OPTIONS'), 0);
    assert.equal(routeMethodMask(route({ enabled: false, origins: ['*'], credentials: false })) & methodBit('OPTIONS'), 0);
  });
});

describe('compileCorsOrigins', () => {
  const cases: Array<[string[], string, boolean]> = [
    [['https://app.example.com'], 'https://app.example.com', true],
    [['https://app.example.com'], 'https://APP.example.com', true],
    [['https://app.example.com'], 'https://app.example.com:443', false],
    [['https://app.example.com'], 'http://app.example.com', false],
    [['https://*.example.com'], 'https://a.example.com', true],
    [['https://*.example.com'], 'https://a.b.example.com', true],
    [['https://*.example.com'], 'https://example.com', false],
    [['https://*.example.com'], 'https://.example.com', false],
    [['https://*.example.com'], 'https://aexample.com', false],
    [['https://*.example.com'], 'https://a.example.com.evil.net', false],
    [['https://*.example.com'], 'https://x/y.example.com', false],
    [['https://*.example.com'], 'https://x:1@a.example.com', false],
    [['https://*.example.com:8443'], 'https://a.example.com:8443', true],
    [['https://*.example.com:8443'], 'https://a.example.com', false],
    [['*'], 'null', true],
    [['https://app.example.com'], 'null', false],
  ];
  for (const [origins, origin, expected] of cases) {
    it(`${origins.join(',')} ${expected ? 'matches' : 'does not match'} ${origin}`, () => assert.equal(compileCorsOrigins(origins)(origin), expected));
  }
});
