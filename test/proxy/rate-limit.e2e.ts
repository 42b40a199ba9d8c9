import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { request, startGatewayProcess, startUpstream, type ClientResponse, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

interface RateLimitBody {
  error: string;
  message: string;
  correlationId: string;
  retryAfter: number;
}

/** A long window, so no refill or window boundary happens during a test. */
const LONG = 864_000_000;

describe('rate limiting (in-memory store)', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  let config: string;
  /** Requests from 127.0.0.2: another client address on loopback (not a trusted proxy). */
  const otherClient = new http.Agent({ localAddress: '127.0.0.2' });

  before(async () => {
    upstream = await startUpstream({
      handler: (req, res) => {
        res.statusCode = req.url?.includes('fail') ? 500 : 200;
        res.end('ok');
      },
    });
    const route = (id: string, rateLimit: string, path = `/${id}/*`): string => `  - { id: ${id}, path: ${path}, upstream: "${upstream.origin}", rateLimit: { enabled: true, ${rateLimit} } }`;
    config = `
version: "1.0.0"
proxy: { trustedProxies: ["127.0.0.1"] }
routes:
${route('tb', `max: 3, windowMs: ${LONG}`)}
${route('fw', `max: 3, windowMs: ${LONG}, strategy: fixed-window`)}
${route('sw', `max: 3, windowMs: ${LONG}, strategy: sliding-window`)}
${route('lb', `max: 3, windowMs: ${LONG}, strategy: leaky-bucket`)}
${route('ip', `max: 2, windowMs: ${LONG}, scope: ip`)}
${route('whole', `max: 2, windowMs: ${LONG}, scope: route`)}
${route('tenant', `max: 2, windowMs: ${LONG}, keyExpression: "header:x-tenant"`)}
${route('keyed', `max: 2, windowMs: ${LONG}, scope: apiKey`)}
${route('user', `max: 1, windowMs: ${LONG}, scope: user`)}
${route('skipfail', `max: 2, windowMs: ${LONG}, skipFailedRequests: true`)}
${route('skipok', `max: 2, windowMs: ${LONG}, skipSuccessfulRequests: true`)}
${route('custom', `max: 1, windowMs: ${LONG}, response: { status: 503, message: "Slow down", headers: { x-why: quota } }`)}
${route('refill', `max: 2, windowMs: 1000`)}
${route('kept', `max: 2, windowMs: ${LONG}`)}
  - { id: open, path: /open/*, upstream: "${upstream.origin}" }
`;
    gateway = await startGatewayProcess({ config });
  });

  after(async () => {
    otherClient.destroy();
    await gateway?.stop();
    await upstream?.close();
  });

  const get = (path: string, init: Parameters<typeof request>[1] = {}): Promise<ClientResponse> => request(`${gateway.url}${path}`, init);
  const statuses = async (path: string, n: number, init: Parameters<typeof request>[1] = {}): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < n; i += 1) out.push((await get(path, init)).status);
    return out;
  };

  for (const id of ['tb', 'fw', 'sw', 'lb']) {
    test(`${id}: exactly max requests pass, then 429 with the spec 7.3 body and 7.4 headers`, async () => {
      const before = upstream.requests.length;
      const remaining: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await get(`/${id}/x`);
        assert.equal(res.status, 200);
        assert.equal(res.headers['x-ratelimit-limit'], '3');
        remaining.push(String(res.headers['x-ratelimit-remaining']));
        assert.ok(Number(res.headers['x-ratelimit-reset']) >= Math.floor(Date.now() / 1000), 'reset is epoch seconds');
        // The spec 9.2 headers every response starts with stay beside them (the policy builds the set anew).
        assert.equal(res.headers['x-api-version'], '1.0.0');
        assert.ok(typeof res.headers['x-config-version'] === 'string' && res.headers['x-config-version'] !== '');
      }
      assert.deepEqual(remaining, ['2', '1', '0']);
      const rejected = await get(`/${id}/x`, { headers: { 'x-correlation-id': `rl-${id}` } });
      assert.equal(rejected.status, 429);
      assert.equal(rejected.headers['x-ratelimit-remaining'], '0');
      assert.equal(rejected.headers['x-api-version'], '1.0.0');
      const body = rejected.json<RateLimitBody>();
      assert.equal(body.error, 'Too Many Requests');
      assert.equal(body.message, 'Rate limit exceeded');
      assert.equal(body.correlationId, `rl-${id}`);
      assert.ok(Number.isInteger(body.retryAfter) && body.retryAfter >= 1);
      assert.equal(rejected.headers['retry-after'], String(body.retryAfter));
      assert.equal(upstream.requests.length - before, 3, 'a rejected request never reaches the upstream');
    });
  }

  test('a route without rateLimit has no rate-limit headers', async () => {
    const res = await get('/open/x');
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-ratelimit-limit'], undefined);
  });

  test('scope ip: each client address has its own allowance', async () => {
    assert.deepEqual(await statuses('/ip/x', 3), [200, 200, 429]);
    assert.deepEqual(await statuses('/ip/x', 3, { agent: otherClient }), [200, 200, 429]);
  });

  test('scope route: every client shares one allowance', async () => {
    assert.deepEqual(await statuses('/whole/x', 1), [200]);
    assert.deepEqual(await statuses('/whole/x', 2, { agent: otherClient }), [200, 429]);
  });

  test('key expression header:x-tenant counts per tenant; no header falls back to the client address', async () => {
    assert.deepEqual(await statuses('/tenant/x', 3, { headers: { 'x-tenant': 'acme' } }), [200, 200, 429]);
    assert.deepEqual(await statuses('/tenant/x', 3, { headers: { 'x-tenant': 'globex' } }), [200, 200, 429]);
    assert.deepEqual(await statuses('/tenant/x', 3), [200, 200, 429]);
  });

  test('scope apiKey: X-API-Key and Authorization: ApiKey name the same key', async () => {
    assert.deepEqual(await statuses('/keyed/x', 1, { headers: { 'x-api-key': 'k-1' } }), [200]);
    assert.deepEqual(await statuses('/keyed/x', 2, { headers: { authorization: 'ApiKey k-1' } }), [200, 429]);
    assert.deepEqual(await statuses('/keyed/x', 2, { headers: { 'x-api-key': 'k-2' } }), [200, 200]);
  });

  test('scope user on a route without gateway auth: counted per credential as sent', async () => {
    assert.deepEqual(await statuses('/user/x', 2, { headers: { authorization: 'Bearer alice' } }), [200, 429]);
    assert.deepEqual(await statuses('/user/x', 2, { headers: { authorization: 'Bearer bob' } }), [200, 429]);
  });

  test('trusted proxy: the right-most untrusted X-Forwarded-For entry is the client; spoofed entries left of it change nothing', async () => {
    // The peer 127.0.0.1 is trusted: 203.0.113.1 is the client whatever the client put before it.
    assert.deepEqual(await statuses('/ip/t', 1, { headers: { 'x-forwarded-for': '1.1.1.1, 203.0.113.1' } }), [200]);
    assert.deepEqual(await statuses('/ip/t', 1, { headers: { 'x-forwarded-for': '2.2.2.2, 203.0.113.1' } }), [200]);
    assert.deepEqual(await statuses('/ip/t', 1, { headers: { 'x-forwarded-for': '203.0.113.1' } }), [429]);
    assert.deepEqual(await statuses('/ip/t', 2, { headers: { 'x-forwarded-for': '203.0.113.2' } }), [200, 200]);
  });

  test('untrusted peer: a spoofed X-Forwarded-For never changes the key', async () => {
    // 127.0.0.2 already used its allowance on /ip in the scope test.
    for (const spoof of ['9.9.9.9', '8.8.8.8', '127.0.0.1', '203.0.113.77']) {
      const res = await get('/ip/x', { agent: otherClient, headers: { 'x-forwarded-for': spoof } });
      assert.equal(res.status, 429, `X-Forwarded-For: ${spoof}`);
    }
  });

  test('skipFailedRequests: 5xx answers are not counted', async () => {
    assert.deepEqual(await statuses('/skipfail/fail', 4), [500, 500, 500, 500]);
    assert.deepEqual(await statuses('/skipfail/x', 3), [200, 200, 429]);
  });

  test('skipSuccessfulRequests: only failed answers count', async () => {
    assert.deepEqual(await statuses('/skipok/x', 4), [200, 200, 200, 200]);
    assert.deepEqual(await statuses('/skipok/fail', 3), [500, 500, 429]);
  });

  test('custom rejection: status, message and headers of the route', async () => {
    assert.equal((await get('/custom/x')).status, 200);
    const res = await get('/custom/x', { headers: { 'x-correlation-id': 'custom-1' } });
    assert.equal(res.status, 503);
    assert.equal(res.headers['x-why'], 'quota');
    assert.equal(res.headers['x-ratelimit-remaining'], '0');
    const body = res.json<RateLimitBody>();
    assert.deepEqual({ ...body, retryAfter: 0 }, { error: 'Service Unavailable', message: 'Slow down', correlationId: 'custom-1', retryAfter: 0 });
    assert.equal(res.headers['retry-after'], String(body.retryAfter));
  });

  test('the token bucket refills: a rejected client gets through again once a token is back', async () => {
    assert.deepEqual(await statuses('/refill/x', 3), [200, 200, 429]);
    let status = 429;
    for (let i = 0; i < 100 && status === 429; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await get('/refill/x')).status;
    }
    assert.equal(status, 200);
  });

  test('gateway_rate_limit_hits_total counts rejections per route id', async () => {
    const metrics = (await get('/metrics')).text;
    assert.match(metrics, /gateway_rate_limit_hits_total\{route="tb"\} 1\b/);
    assert.match(metrics, /gateway_rate_limit_hits_total\{route="ip"\} [1-9]/);
  });

  test('counters are keyed by route id and survive a reload (SIGHUP)', async () => {
    assert.deepEqual(await statuses('/kept/x', 2), [200, 200]);
    gateway.writeConfig(`${config}  - { id: added, path: /added/*, upstream: "${upstream.origin}" }\n`);
    gateway.signal('SIGHUP');
    let added = 404;
    for (let i = 0; i < 200 && added === 404; i += 1) {
      added = (await get('/added/x')).status;
      if (added === 404) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(added, 200, 'the reloaded table is live');
    assert.equal((await get('/kept/x')).status, 429, 'max 2 was used up before the reload');
  });
});
