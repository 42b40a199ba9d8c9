import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, startGatewayProcess, startUpstream, type ClientResponse, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { hmacToken, nowSeconds } from './jwt-tokens';

const SECRET = 'rate-limit-identity-secret-at-least-32-characters';
const LONG = 864_000_000;

/** A fresh token for `sub`: another jti and issue time, so the Authorization header differs each time. */
let minted = 0;
const tokenFor = (sub: string): string => {
  minted += 1;
  return `Bearer ${hmacToken(SECRET, { sub, jti: `t${minted}`, iat: nowSeconds() - minted, exp: nowSeconds() + 3600 })}`;
};

/**
 * Scope `user` behind gateway authentication (docs/resilience.md): authentication runs first, so
 * the limiter counts the identity it established, not the token as sent.
 */
describe('rate limit scope user counts the authenticated identity', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    upstream = await startUpstream();
    const limit = `rateLimit: { enabled: true, max: 2, windowMs: ${LONG}, scope: user }`;
    gateway = await startGatewayProcess({
      env: { RL_JWT_SECRET: SECRET },
      config: `
version: "1.0.0"
routes:
  - { id: jwt, path: /jwt/*, upstream: "${upstream.origin}", auth: { enabled: true, type: jwt, jwt: { secretEnv: RL_JWT_SECRET } }, ${limit} }
  - { id: anon, path: /anon/*, upstream: "${upstream.origin}", auth: { enabled: true, type: jwt, allowAnonymous: true, jwt: { secretEnv: RL_JWT_SECRET } }, ${limit} }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const get = (path: string, authorization?: string): Promise<ClientResponse> =>
    request(`${gateway.url}${path}`, { headers: authorization === undefined ? {} : { authorization } });

  test('two different JWTs with the same sub share one allowance; another sub has its own', async () => {
    const first = tokenFor('alice');
    const second = tokenFor('alice');
    assert.notEqual(first, second);
    const a = await get('/jwt/x', first);
    assert.equal(a.status, 200);
    assert.equal(a.headers['x-ratelimit-remaining'], '1');
    const b = await get('/jwt/x', second);
    assert.equal(b.status, 200);
    assert.equal(b.headers['x-ratelimit-remaining'], '0', 'the second token spent the same allowance');
    assert.equal((await get('/jwt/x', tokenFor('alice'))).status, 429, 'a third token of alice gets no fresh allowance');
    assert.equal((await get('/jwt/x', tokenFor('bob'))).status, 200);
  });

  test('a request refused by authentication is answered before the limiter: no X-RateLimit-* headers, nothing spent', async () => {
    const refused = await get('/jwt/x', 'Bearer not-a-token');
    assert.equal(refused.status, 401);
    assert.equal(refused.headers['x-ratelimit-limit'], undefined);
    const carol = tokenFor('carol');
    for (let i = 0; i < 3; i += 1) assert.equal((await get('/jwt/x', 'Bearer forged.' + String(i))).status, 401);
    const ok = await get('/jwt/x', carol);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['x-ratelimit-limit'], '2');
    assert.equal(ok.headers['x-ratelimit-remaining'], '1');
  });

  test('an anonymous caller (allowAnonymous) is counted by its address, apart from authenticated users', async () => {
    assert.deepEqual([(await get('/anon/x')).status, (await get('/anon/x')).status, (await get('/anon/x')).status], [200, 200, 429]);
    assert.equal((await get('/anon/x', tokenFor('dave'))).status, 200, "dave's allowance is his own");
  });
});
