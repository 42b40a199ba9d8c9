import { test } from 'node:test';
import assert from 'node:assert/strict';
import { joseJwtVerifierFactory } from './jose-jwt-verifier.adapter';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';

test('configurations that cannot be verified safely are refused when the route loads', () => {
  assert.throws(() => joseJwtVerifierFactory.create({ secret: SECRET, algorithms: ['HS256', 'RS256'], validateExpiration: true }), /algorithm confusion/);
  assert.throws(() => joseJwtVerifierFactory.create({ secret: 'short', algorithms: ['HS256'], validateExpiration: true }), /shorter than 32/);
  assert.throws(() => joseJwtVerifierFactory.create({ secret: SECRET, algorithms: ['RS256'], validateExpiration: true }), /PEM public key/);
});

test('verification failures carry a reason and never the token', async () => {
  const verify = joseJwtVerifierFactory.create({ secret: SECRET, algorithms: ['HS256'], validateExpiration: true });
  assert.deepEqual(await verify('x'.repeat(9000)), { ok: false, reason: 'malformed' });
  assert.deepEqual(await verify('a.b.c'), { ok: false, reason: 'malformed' });
});
