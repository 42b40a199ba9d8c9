import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import type { RateLimitConfig } from '@gateway/route-model';
import type { CallerIdentity, Exchange } from '../../engine/exchange';
import { compileScopeKey } from './rate-limit-key';

const config: RateLimitConfig = { enabled: true, max: 1, windowMs: 1000, strategy: 'token-bucket', scope: 'user' };
const userScope = compileScopeKey(config, (e) => e.clientIp);
const exchange = (headers: IncomingHttpHeaders, identity?: Partial<CallerIdentity>): Exchange =>
  ({
    clientIp: '203.0.113.9',
    req: { headers },
    identity: identity === undefined ? undefined : { scheme: 'jwt', userId: undefined, keyId: undefined, ...identity },
  }) as unknown as Exchange;

test('scope user behind gateway auth: the identity auth recorded, not the credential as sent', () => {
  assert.equal(userScope(exchange({ authorization: 'Bearer one' }, { userId: 'alice' })), 'user:alice');
  assert.equal(userScope(exchange({ authorization: 'Bearer two' }, { userId: 'alice' })), 'user:alice', 'another token of alice');
  assert.equal(userScope(exchange({ 'x-api-key': 'k' }, { scheme: 'apiKey', keyId: 'key_1', userId: 'owner' })), 'apikey:key_1', 'a key is a client of its own');
  assert.equal(userScope(exchange({}, { scheme: 'anonymous' })), 'ip:203.0.113.9');
  assert.equal(userScope(exchange({ authorization: 'Bearer no-sub' }, {})), 'ip:203.0.113.9', 'a token naming nobody');
  assert.match(userScope(exchange({}, { userId: 'x'.repeat(65) })), /^user:#[A-Za-z0-9_-]{22}$/, 'long ids are bounded');
});

test('scope user on a route without gateway auth: a digest of the credential, else the address', () => {
  const bearer = userScope(exchange({ authorization: 'Bearer secret-token' }));
  assert.match(bearer, /^credential:[A-Za-z0-9_-]{22}$/);
  assert.ok(!bearer.includes('secret-token'));
  assert.notEqual(userScope(exchange({ authorization: 'Bearer other' })), bearer);
  assert.match(userScope(exchange({ 'x-api-key': 'k-1' })), /^credential:/);
  assert.equal(userScope(exchange({})), 'ip:203.0.113.9');
});

test('scope ip: the right key for every address, through and past the cache bound', () => {
  const ipScope = compileScopeKey({ ...config, scope: 'ip' }, (e) => e.clientIp);
  const at = (clientIp: string): Exchange => ({ clientIp, req: { headers: {} } }) as unknown as Exchange;
  // 3,000 addresses (the cache keeps 1,024), then the first ones again after it was cleared.
  for (let round = 0; round < 2; round += 1) {
    for (let i = 0; i < 3000; i += 1) {
      const address = `198.51.${i >> 8}.${i & 255}`;
      assert.equal(ipScope(at(address)), `ip:${address}`);
    }
  }
});
