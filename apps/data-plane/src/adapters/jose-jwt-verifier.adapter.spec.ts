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

test('a verified token is remembered: the identical token is answered synchronously, another one is verified', async () => {
  const { createHmac } = await import('node:crypto');
  const sign = (claims: object): string => {
    const input = `${Buffer.from(JSON.stringify({ alg: 'HS256' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
  };
  const verify = joseJwtVerifierFactory.create({ secret: SECRET, algorithms: ['HS256'], validateExpiration: true });
  const token = sign({ sub: 'a', exp: Math.floor(Date.now() / 1000) + 600 });
  const first = verify(token);
  assert.ok(first instanceof Promise);
  assert.equal((await first).ok, true);
  const second = verify(token);
  assert.ok(!(second instanceof Promise));
  assert.equal(second.ok, true);
  const tampered = `${token.slice(0, -2)}xx`;
  assert.deepEqual(await verify(tampered), { ok: false, reason: 'signature' });
  // An already expired token is never remembered as valid.
  const expired = sign({ sub: 'a', exp: Math.floor(Date.now() / 1000) - 1 });
  assert.deepEqual(await verify(expired), { ok: false, reason: 'expired' });
});
