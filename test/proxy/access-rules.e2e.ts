import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { request, startGatewayProcess, startUpstream, type ClientRequest, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

/*
 * Access rules end to end (issue 18): per-route IP allow/deny lists on the client address through
 * proxy.trustedProxies, over IPv4 and IPv6 loopback, and CORS answered by the gateway. The gateway
 * listens on `::` (dual stack) so one process sees a 127.0.0.1 client and a ::1 client.
 */

const JWT_SECRET = 'access-rules-e2e-secret-0123456789';

function unsignedToken(): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: 'ann', exp: Math.floor(Date.now() / 1000) + 600 })}`;
  return `${body}.${createHmac('sha256', JWT_SECRET).update(body).digest('base64url')}`;
}

describe('access rules: IP allow/deny lists and CORS', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  let v6: string;

  before(async () => {
    upstream = await startUpstream({
      handler: (req, res) => {
        // An upstream with CORS of its own: the gateway's answer replaces it on CORS routes.
        res.writeHead(200, { 'content-type': 'text/plain', vary: 'Accept-Encoding', 'access-control-allow-origin': '*', 'x-total': '3' });
        res.end(`upstream ${req.method} ${req.url}`);
      },
    });
    gateway = await startGatewayProcess({
      env: { ACCESS_RULES_JWT_SECRET: JWT_SECRET },
      // Dual stack (the harness passes --host 127.0.0.1 first; the last --host wins).
      args: ['--host', '::'],
      config: `
version: "1.0.0"
proxy: { host: 127.0.0.1, port: 8080, trustedProxies: ["127.0.0.1"] }
upstreams:
  - { name: main, url: "${upstream.origin}" }
routes:
  - { id: allow4, path: /allow4/*, upstream: main, ipRestriction: { allow: ["127.0.0.0/8"] } }
  - { id: allow6, path: /allow6/*, upstream: main, ipRestriction: { allow: ["::1/128"] } }
  - { id: deny-wins, path: /deny/*, upstream: main, ipRestriction: { allow: ["127.0.0.0/8", "::1"], deny: ["127.0.0.1/32"] } }
  - { id: forwarded, path: /fwd/*, upstream: main, ipRestriction: { allow: ["198.51.100.0/24", "2001:db8::/32"], deny: ["198.51.100.66"] } }
  - { id: off, path: /off/*, upstream: main, ipRestriction: { enabled: false, allow: ["192.0.2.1"] } }
  - id: cors
    path: /cors/*
    upstream: main
    methods: [GET, POST]
    cors:
      origins: ["https://app.example.com", "https://*.example.org"]
      exposedHeaders: [x-total]
      credentials: true
      maxAge: 600
  - id: cors-any
    path: /any/*
    upstream: main
    cors: { origins: ["*"], headers: [content-type, x-requested-with] }
  - id: cors-auth
    path: /private/*
    upstream: main
    auth: { type: jwt, jwt: { secretEnv: ACCESS_RULES_JWT_SECRET } }
    cors: { origins: ["https://app.example.com"] }
  - id: cors-denied-ip
    path: /fenced/*
    upstream: main
    ipRestriction: { deny: ["127.0.0.1"] }
    cors: { origins: ["*"] }
`,
    });
    v6 = `http://[::1]:${gateway.port}`;
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const v4 = (path: string, init: ClientRequest = {}) => request(`${gateway.url}${path}`, init);
  const over6 = (path: string, init: ClientRequest = {}) => request(`${v6}${path}`, init);

  /** Runs `send` and says how many requests reached the upstream meanwhile. */
  async function upstreamCalls<T>(send: () => Promise<T>): Promise<{ result: T; calls: number }> {
    const before = upstream.requests.length;
    const result = await send();
    return { result, calls: upstream.requests.length - before };
  }

  function assertForbidden(res: Awaited<ReturnType<typeof request>>): void {
    assert.equal(res.status, 403, res.text);
    const body = res.json<{ error: string; message: string; correlationId: string }>();
    assert.equal(body.error, 'Forbidden');
    assert.equal(body.message, 'Access denied');
    assert.equal(body.correlationId, res.headers['x-correlation-id']);
    assert.match(String(res.headers['content-type']), /application\/json/);
  }

  test('an IPv4 allow list serves 127.0.0.1 and refuses ::1 with the spec 7.3 403, without calling the upstream', async () => {
    assert.equal((await v4('/allow4/a')).status, 200);
    const { result, calls } = await upstreamCalls(() => over6('/allow4/a'));
    assertForbidden(result);
    assert.equal(calls, 0);
  });

  test('an IPv6 allow list serves ::1 and refuses 127.0.0.1', async () => {
    assert.equal((await over6('/allow6/a')).status, 200);
    assertForbidden(await v4('/allow6/a'));
  });

  test('deny wins over allow', async () => {
    assertForbidden(await v4('/deny/a'));
    assert.equal((await over6('/deny/a')).status, 200);
  });

  test('the client address comes through the trusted proxy only: X-Forwarded-For from 127.0.0.1 counts, from ::1 it does not', async () => {
    assert.equal((await v4('/fwd/a', { headers: { 'x-forwarded-for': '198.51.100.7' } })).status, 200);
    assert.equal((await v4('/fwd/a', { headers: { 'x-forwarded-for': '2001:db8::42' } })).status, 200, 'an IPv6 client behind an IPv4 proxy');
    assertForbidden(await v4('/fwd/a', { headers: { 'x-forwarded-for': '198.51.100.66' } }));
    // A client-written entry left of the proxy's is never believed (the rightmost untrusted hop is the client).
    assertForbidden(await v4('/fwd/a', { headers: { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' } }));
    assertForbidden(await v4('/fwd/a'));
    // ::1 is not a trusted proxy: its X-Forwarded-For is ignored and ::1 itself is not allowed.
    assertForbidden(await over6('/fwd/a', { headers: { 'x-forwarded-for': '198.51.100.7' } }));
  });

  test('a disabled ipRestriction block refuses nothing', async () => {
    assert.equal((await v4('/off/a')).status, 200);
  });

  test('a preflight is answered by the gateway (204, allow headers, Vary) and never reaches the upstream', async () => {
    const { result: res, calls } = await upstreamCalls(() =>
      v4('/cors/items', {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-custom' },
      }),
    );
    assert.equal(calls, 0);
    assert.equal(res.status, 204);
    assert.equal(res.headers['access-control-allow-origin'], 'https://app.example.com');
    assert.equal(res.headers['access-control-allow-methods'], 'GET, POST');
    assert.equal(res.headers['access-control-allow-headers'], 'content-type, x-custom', 'no configured list: the requested headers are allowed');
    assert.equal(res.headers['access-control-allow-credentials'], 'true');
    assert.equal(res.headers['access-control-max-age'], '600');
    assert.match(String(res.headers.vary), /\bOrigin\b/);
    assert.ok(res.headers['x-correlation-id'], 'the gateway headers are on the preflight too');
  });

  test('origin patterns match subdomains at any depth, never the bare domain or a look-alike', async () => {
    const preflight = (origin: string) => v4('/cors/items', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } });
    for (const origin of ['https://a.example.org', 'https://a.b.example.org', 'HTTPS://Shop.Example.org']) {
      const res = await preflight(origin);
      assert.equal(res.status, 204);
      assert.equal(res.headers['access-control-allow-origin'], origin, origin);
    }
    for (const origin of ['https://example.org', 'https://evilexample.org', 'http://a.example.org', 'https://a.example.org.evil.com', 'https://app.example.com.evil.com', 'null']) {
      const { result: res, calls } = await upstreamCalls(() => preflight(origin));
      assert.equal(res.status, 204, origin);
      assert.equal(calls, 0, origin);
      assert.equal(res.headers['access-control-allow-origin'], undefined, origin);
      assert.equal(res.headers['access-control-allow-methods'], undefined, origin);
      assert.match(String(res.headers.vary), /\bOrigin\b/, origin);
    }
  });

  test('an actual request from an allowed origin gets the CORS headers; the upstream’s own are replaced and its Vary kept', async () => {
    const res = await v4('/cors/items', { headers: { origin: 'https://app.example.com' } });
    assert.equal(res.status, 200);
    assert.equal(res.text, 'upstream GET /items');
    assert.equal(res.headers['access-control-allow-origin'], 'https://app.example.com');
    assert.equal(res.headers['access-control-allow-credentials'], 'true');
    assert.equal(res.headers['access-control-expose-headers'], 'x-total');
    assert.equal(res.headers.vary, 'Accept-Encoding, Origin');
    assert.equal(res.rawHeaders.filter((name) => name.toLowerCase() === 'access-control-allow-origin').length, 1);
  });

  test('a request from another origin is proxied without CORS headers (the upstream’s are dropped too)', async () => {
    const res = await v4('/cors/items', { headers: { origin: 'https://evil.example.com' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
    assert.equal(res.headers.vary, 'Accept-Encoding, Origin');
    const none = await v4('/cors/items');
    assert.equal(none.headers['access-control-allow-origin'], undefined);
    assert.equal(none.headers.vary, 'Accept-Encoding, Origin');
  });

  test('a plain OPTIONS on a route that does not serve OPTIONS is 405, not proxied', async () => {
    const { result: res, calls } = await upstreamCalls(() => v4('/cors/items', { method: 'OPTIONS', headers: { origin: 'https://app.example.com' } }));
    assert.equal(res.status, 405);
    assert.equal(calls, 0);
  });

  test('origin * without credentials: Access-Control-Allow-Origin *, the configured headers, every method by default', async () => {
    const res = await v4('/any/x', { method: 'OPTIONS', headers: { origin: 'https://anywhere.test', 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'x-other' } });
    assert.equal(res.status, 204);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['access-control-allow-headers'], 'content-type, x-requested-with');
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
    assert.match(String(res.headers['access-control-allow-methods']), /\bDELETE\b/);
    assert.equal(res.headers['access-control-max-age'], undefined);
    const actual = await v4('/any/x', { headers: { origin: 'https://anywhere.test' } });
    assert.equal(actual.headers['access-control-allow-origin'], '*');
    // The route serves every method, OPTIONS included: a plain OPTIONS goes upstream.
    const plain = await v4('/any/x', { method: 'OPTIONS' });
    assert.equal(plain.text, 'upstream OPTIONS /x');
  });

  test('on an authenticated route the preflight needs no credentials, and the 401 carries the CORS headers', async () => {
    const { result: preflight, calls } = await upstreamCalls(() =>
      v4('/private/me', { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } }),
    );
    assert.equal(preflight.status, 204);
    assert.equal(calls, 0);
    assert.equal(preflight.headers['access-control-allow-headers'], 'authorization');
    const refused = await v4('/private/me', { headers: { origin: 'https://app.example.com' } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers['access-control-allow-origin'], 'https://app.example.com', 'a browser script can read why it was refused');
    assert.match(String(refused.headers.vary), /\bOrigin\b/);
    const served = await v4('/private/me', { headers: { origin: 'https://app.example.com', authorization: `Bearer ${unsignedToken()}` } });
    assert.equal(served.status, 200);
    assert.equal(served.headers['access-control-allow-origin'], 'https://app.example.com');
  });

  test('IP rules run before CORS: a denied address gets 403 even on a preflight', async () => {
    const { result, calls } = await upstreamCalls(() => v4('/fenced/x', { method: 'OPTIONS', headers: { origin: 'https://a.test', 'access-control-request-method': 'GET' } }));
    assertForbidden(result);
    assert.equal(calls, 0);
    const allowed = await over6('/fenced/x', { method: 'OPTIONS', headers: { origin: 'https://a.test', 'access-control-request-method': 'GET' } });
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers['access-control-allow-origin'], '*');
  });
});
