import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, scryptSync } from 'node:crypto';
import { request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { hmacToken, noneToken, nowSeconds, rsaToken } from './jwt-tokens';

interface Echo {
  headers: Record<string, string>;
}

const SECRET = 'test-secret-that-is-at-least-32-characters-long';
const ISSUER = 'https://issuer.test';
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PUBLIC_PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();

/** The stored form the route model accepts (docs/edge-policies.md); small N keeps the test fast. */
function basicHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 });
  return `scrypt$1024$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

const basicHeader = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('gateway authentication: jwt, basic, apiKey, identity headers', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    upstream = await startUpstream();
    gateway = await startGatewayProcess({
      // API_KEY_SECRET: without it the apiKey route would answer 503 (test/cluster/api-keys-redis.e2e.ts).
      env: { EDGE_JWT_SECRET: SECRET, EDGE_JWT_PUBLIC: PUBLIC_PEM, API_KEY_SECRET: 'proxy-auth-e2e-api-key-secret-0123456789' },
      config: `
version: "1.0.0"
proxy: { host: 127.0.0.1, port: 8080 }
upstreams:
  - { name: main, url: "${upstream.origin}" }
routes:
  - id: jwt
    path: /jwt/*
    upstream: main
    auth: { enabled: true, type: jwt, jwt: { secretEnv: EDGE_JWT_SECRET, algorithms: [HS256], validateIssuer: true, issuer: "${ISSUER}", validateExpiration: true } }
  - id: jwtrs
    path: /jwt-rs/*
    upstream: main
    auth: { enabled: true, type: jwt, jwt: { secretEnv: EDGE_JWT_PUBLIC, algorithms: [RS256] } }
  - id: noexp
    path: /jwt-noexp/*
    upstream: main
    auth: { enabled: true, type: jwt, jwt: { secretEnv: EDGE_JWT_SECRET, validateExpiration: false } }
  - id: unset
    path: /jwt-unset/*
    upstream: main
    auth: { enabled: true, type: jwt, jwt: { secretEnv: EDGE_NOT_SET_ANYWHERE } }
  - id: basic
    path: /basic/*
    upstream: main
    auth: { enabled: true, type: basic, basic: { users: { alice: "${basicHash('correct horse')}" } } }
  - id: apikey
    path: /key/*
    upstream: main
    auth: { enabled: true, type: apiKey }
  - id: anon
    path: /anon/*
    upstream: main
    auth: { enabled: true, type: jwt, allowAnonymous: true, jwt: { secretEnv: EDGE_JWT_SECRET } }
  - id: open
    path: /open/*
    upstream: main
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) => request(`${gateway.url}${path}`, { headers });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const valid = () => ({ sub: 'user-1', email: 'u1@example.test', role: 'admin', iss: ISSUER, exp: nowSeconds() + 600 });

  test('a valid HS256 token passes; the identity goes upstream and client copies are replaced', async () => {
    const res = await get('/jwt/a', { ...bearer(hmacToken(SECRET, valid())), 'x-gateway-user-id': 'spoofed', 'x-gateway-key-id': 'spoofed-key' });
    assert.equal(res.status, 200);
    const seen = res.json<Echo>().headers;
    assert.equal(seen['x-gateway-user-id'], 'user-1');
    assert.equal(seen['x-gateway-user-email'], 'u1@example.test');
    assert.equal(seen['x-gateway-user-role'], 'admin');
    assert.equal(seen['x-gateway-auth'], 'jwt');
    assert.equal(seen['x-gateway-key-id'], undefined);
  });

  test('identities that differ only outside plain ASCII stay different upstream (percent-encoded UTF-8)', async () => {
    const as = async (sub: string, email: string): Promise<Record<string, string>> =>
      (await get('/jwt/encoded', bearer(hmacToken(SECRET, { ...valid(), sub, email })))).json<Echo>().headers;
    const accented = await as('jos\u00e9', 'jos\u00e9@example.test');
    assert.equal(accented['x-gateway-user-id'], 'jos%C3%A9');
    assert.equal(accented['x-gateway-user-email'], 'jos%C3%A9@example.test');
    assert.equal((await as('jos\u00e8', 'e'))['x-gateway-user-id'], 'jos%C3%A8');
    assert.equal((await as('admin\u200b', 'e'))['x-gateway-user-id'], 'admin%E2%80%8B', 'a zero-width space does not make the id "admin"');
    assert.equal((await as('50%', 'e'))['x-gateway-user-id'], '50%25', 'a literal % cannot impersonate an encoded id');
    assert.equal((await as('a b', 'e'))['x-gateway-user-id'], 'a%20b', 'spaces are not trimmed away');
  });

  test('missing credentials: 401 with WWW-Authenticate and the spec 7.3 body', async () => {
    const res = await get('/jwt/a');
    assert.equal(res.status, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer realm="gateway"');
    assert.deepEqual(Object.keys(res.json()).sort(), ['correlationId', 'error', 'message']);
    assert.equal(res.json().error, 'Unauthorized');
  });

  test('every JWT attack is a 401 with error="invalid_token"', async () => {
    const claims = valid();
    const attacks: Record<string, string> = {
      'alg none': noneToken(claims),
      'alg none, signature kept': `${noneToken(claims)}${hmacToken(SECRET, claims).split('.')[2]}`,
      'wrong secret': hmacToken('another-secret-that-is-at-least-32-characters', claims),
      'algorithm not allowed (HS512)': hmacToken(SECRET, claims, {}, 'HS512'),
      'expired': hmacToken(SECRET, { ...claims, exp: nowSeconds() - 60 }),
      'missing exp': hmacToken(SECRET, { sub: 'user-1', iss: ISSUER }),
      'wrong issuer': hmacToken(SECRET, { ...claims, iss: 'https://evil.test' }),
      'missing issuer': hmacToken(SECRET, { sub: 'user-1', exp: nowSeconds() + 600 }),
      'unknown crit header': hmacToken(SECRET, claims, { crit: ['x-unknown'], 'x-unknown': 1 }),
      'tampered payload': (() => {
        const [h, , s] = hmacToken(SECRET, claims).split('.');
        return `${h}.${Buffer.from(JSON.stringify({ ...claims, role: 'root' })).toString('base64url')}.${s}`;
      })(),
      'garbage': 'not.a.jwt',
      'rs256 token on an hs256 route': rsaToken(privateKey, claims),
    };
    for (const [name, token] of Object.entries(attacks)) {
      const res = await get('/jwt/a', bearer(token));
      assert.equal(res.status, 401, name);
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="gateway", error="invalid_token"', name);
    }
    assert.equal(upstream.requests.filter((r) => r.url.startsWith('/a') && r.headers['x-gateway-user-id'] !== 'user-1').length, 0);
  });

  test('algorithm confusion: an HS256 token signed with the RS256 route public key is refused; a real RS256 token passes', async () => {
    const claims = { sub: 'rs-user', exp: nowSeconds() + 600 };
    assert.equal((await get('/jwt-rs/a', bearer(hmacToken(PUBLIC_PEM, claims)))).status, 401);
    assert.equal((await get('/jwt-rs/a', bearer(noneToken(claims)))).status, 401);
    const ok = await get('/jwt-rs/a', bearer(rsaToken(privateKey, claims)));
    assert.equal(ok.status, 200);
    assert.equal(ok.json<Echo>().headers['x-gateway-user-id'], 'rs-user');
  });

  test('validateExpiration false: a token without exp passes', async () => {
    assert.equal((await get('/jwt-noexp/a', bearer(hmacToken(SECRET, { sub: 'x' })))).status, 200);
  });

  test('a secret variable that is not set fails closed with 503, never open', async () => {
    const res = await get('/jwt-unset/a', bearer(hmacToken(SECRET, valid())));
    assert.equal(res.status, 503);
    assert.equal(res.json().message, 'Authentication is not configured for this route');
    await gateway.waitForOutput('route authentication cannot be enforced');
  });

  test('basic: the right password passes, a wrong one or an unknown user is 401 with a Basic challenge', async () => {
    const ok = await get('/basic/a', { authorization: basicHeader('alice', 'correct horse') });
    assert.equal(ok.status, 200);
    assert.equal(ok.json<Echo>().headers['x-gateway-user-id'], 'alice');
    assert.equal(ok.json<Echo>().headers['x-gateway-auth'], 'basic');
    // Remembered verification: still right the second time.
    assert.equal((await get('/basic/a', { authorization: basicHeader('alice', 'correct horse') })).status, 200);
    for (const auth of [basicHeader('alice', 'wrong'), basicHeader('bob', 'correct horse'), 'Basic !!!', bearer(hmacToken(SECRET, valid())).authorization]) {
      const res = await get('/basic/a', { authorization: auth });
      assert.equal(res.status, 401, auth);
      assert.equal(res.headers['www-authenticate'], 'Basic realm="gateway", charset="UTF-8"');
    }
  });

  test('apiKey: an unknown key (X-API-Key or Authorization: ApiKey) is 401 with an ApiKey challenge', async () => {
    const variants: Array<Record<string, string>> = [{ 'x-api-key': 'gk_unknown' }, { authorization: 'ApiKey gk_unknown' }, {}];
    for (const headers of variants) {
      const res = await get('/key/a', headers);
      assert.equal(res.status, 401);
      assert.equal(res.headers['www-authenticate'], 'ApiKey realm="gateway"');
    }
  });

  test('allowAnonymous: no credentials pass as anonymous; a bad token is still refused', async () => {
    const anon = await get('/anon/a', { 'x-gateway-user-id': 'spoofed' });
    assert.equal(anon.status, 200);
    assert.equal(anon.json<Echo>().headers['x-gateway-auth'], 'anonymous');
    assert.equal(anon.json<Echo>().headers['x-gateway-user-id'], undefined);
    assert.equal((await get('/anon/a', bearer('bad.token.here'))).status, 401);
  });

  test('identity headers cannot be spoofed on a route without authentication either', async () => {
    const res = await get('/open/a', { 'x-gateway-user-id': 'root', 'x-gateway-user-role': 'admin', 'x-gateway-auth': 'jwt', 'x-gateway-key-id': 'k', 'x-gateway-user-email': 'e' });
    const seen = res.json<Echo>().headers;
    for (const name of ['x-gateway-user-id', 'x-gateway-user-role', 'x-gateway-auth', 'x-gateway-key-id', 'x-gateway-user-email']) assert.equal(seen[name], undefined, name);
  });

  test('underscore spellings of the identity headers are removed too (WSGI, Rack and PHP read them as the same header)', async () => {
    const spoofs = { x_gateway_user_id: 'root', 'x-gateway_user-role': 'admin', x_gateway_auth: 'jwt', 'x_gateway-key_id': 'k', X_GATEWAY_USER_EMAIL: 'e' };
    const open = (await get('/open/a', spoofs)).json<Echo>().headers;
    const authed = (await get('/jwt/a', { ...bearer(hmacToken(SECRET, valid())), ...spoofs })).json<Echo>().headers;
    for (const seen of [open, authed]) {
      for (const name of Object.keys(spoofs)) assert.equal(seen[name.toLowerCase()], undefined, name);
    }
    assert.equal(authed['x-gateway-user-id'], 'user-1');
  });

  test('failures are counted and logged without the credential', async () => {
    const token = hmacToken(SECRET, { ...valid(), exp: nowSeconds() - 5 });
    await get('/jwt/a', bearer(token));
    await get('/basic/a', { authorization: basicHeader('alice', 'secret-password-xyz') });
    const metrics = (await get('/metrics')).text;
    assert.match(metrics, /gateway_auth_failures_total\{route="jwt",scheme="jwt",reason="expired"\} [1-9]/);
    assert.match(metrics, /gateway_auth_failures_total\{route="basic",scheme="basic",reason="invalid_credentials"\} [1-9]/);
    await gateway.waitForOutput('"reason":"expired"');
    const log = gateway.output.join('\n');
    assert.ok(!log.includes(token) && !log.includes(token.split('.')[2] as string));
    assert.ok(!log.includes('secret-password-xyz') && !log.includes(SECRET));
  });
});
