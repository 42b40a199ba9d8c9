import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { deferred, request, startGatewayProcess, startUpstream, withTimeout, type Deferred, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

/**
 * The upstream answers `n=<calls for this path>` and takes its response headers from the query:
 * cc (Cache-Control), vary, status, cookie, age.
 */
describe('response cache', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  const calls = new Map<string, number>();
  let hold: Deferred<void> | undefined;
  let firstHeld: Deferred<void> | undefined;

  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = `${req.method} ${url.pathname}`;
    const n = (calls.get(key) ?? 0) + 1;
    calls.set(key, n);
    const q = url.searchParams;
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json', connection: 'x-hop', 'x-hop': 'hop-value', 'keep-alive': 'timeout=5' };
    if (q.has('cc')) headers['cache-control'] = q.get('cc') as string;
    if (q.has('vary')) headers.vary = q.get('vary') as string;
    if (q.has('cookie')) headers['set-cookie'] = 'sid=1';
    if (q.has('age')) headers.age = q.get('age') as string;
    const body = JSON.stringify({ n, path: url.pathname, lang: req.headers['x-lang'] ?? null, secret: 'hidden' });
    const send = (): void => {
      res.writeHead(Number(q.get('status') ?? 200), headers);
      res.end(body);
    };
    if (url.pathname.endsWith('/stampede') && hold !== undefined) {
      firstHeld?.resolve();
      void hold.promise.then(send);
    } else send();
  };

  const callsFor = (path: string, method = 'GET'): number => calls.get(`${method} ${path}`) ?? 0;

  before(async () => {
    upstream = await startUpstream({ handler: (req, res) => handler(req, res) });
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
proxy: { host: 127.0.0.1, port: 8080 }
upstreams:
  - { name: main, url: "${upstream.origin}" }
routes:
  - id: cached
    path: /c/*
    upstream: main
    cache: { enabled: true, ttl: 60000, cacheableStatuses: [200, 404] }
  - id: short
    path: /short/*
    upstream: main
    cache: { enabled: true, ttl: 300 }
  - id: pathonly
    path: /p/*
    upstream: main
    cache: { enabled: true, ttl: 60000, varyBy: [path] }
  - id: authorized
    path: /auth/*
    upstream: main
    cache: { enabled: true, ttl: 60000, cacheAuthorized: true }
  - id: shaped
    path: /shaped/*
    upstream: main
    cache: { enabled: true, ttl: 60000 }
    headers: { response: { set: { X-Request: "\${requestId}" } } }
    transform: { response: { body: { exclude: [secret] } } }
`,
    });
  });

  after(async () => {
    hold?.resolve();
    await gateway?.stop();
    await upstream?.close();
  });

  const get = (path: string, init: Parameters<typeof request>[1] = {}) => request(`${gateway.url}${path}`, init);

  test('miss then hit: X-Cache MISS/HIT, Age on hits, one upstream call, same body', async () => {
    const first = await get('/c/a?x=1');
    assert.equal(first.headers['x-cache'], 'MISS');
    assert.equal(first.headers.age, undefined);
    const second = await get('/c/a?x=1');
    assert.equal(second.status, 200);
    assert.equal(second.headers['x-cache'], 'HIT');
    assert.match(second.headers.age as string, /^\d+$/);
    assert.equal(second.text, first.text);
    assert.equal(Number(second.headers['content-length']), second.body.length);
    assert.equal(callsFor('/a'), 1);
    // HEAD is answered from the GET entry.
    const head = await get('/c/a?x=1', { method: 'HEAD' });
    assert.equal(head.headers['x-cache'], 'HIT');
    assert.equal(callsFor('/a'), 1);
  });

  test('varyBy: query and path are part of the key by default; a path-only route ignores the query', async () => {
    await get('/c/q?x=1');
    await get('/c/q?x=2');
    assert.equal(callsFor('/q'), 2);
    await get('/p/q2?x=1');
    const other = await get('/p/q2?x=2');
    assert.equal(other.headers['x-cache'], 'HIT');
    assert.equal(callsFor('/q2'), 1);
  });

  test('hop-by-hop headers are never stored or replayed', async () => {
    await get('/c/hop');
    const hit = await get('/c/hop');
    assert.equal(hit.headers['x-cache'], 'HIT');
    assert.equal(hit.headers['x-hop'], undefined);
    assert.notEqual(hit.headers['keep-alive'], 'timeout=5');
  });

  test('entries expire after ttl (bounded poll, no timing assertion)', async () => {
    assert.equal((await get('/short/e')).headers['x-cache'], 'MISS');
    assert.equal((await get('/short/e')).headers['x-cache'], 'HIT');
    const deadline = Date.now() + 10_000;
    let status = 'HIT';
    while (status === 'HIT' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await get('/short/e')).headers['x-cache'] as string;
    }
    assert.equal(status, 'MISS');
    assert.equal(callsFor('/e'), 2);
  });

  test("an upstream max-age shorter than ttl wins; a longer one does not extend it", async () => {
    await get('/c/ma?cc=max-age%3D1');
    assert.equal((await get('/c/ma?cc=max-age%3D1')).headers['x-cache'], 'HIT');
    const deadline = Date.now() + 10_000;
    let status = 'HIT';
    while (status === 'HIT' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await get('/c/ma?cc=max-age%3D1')).headers['x-cache'] as string;
    }
    assert.equal(status, 'MISS');
    // max-age already used up by the upstream's Age: not stored at all.
    await get('/c/aged?cc=max-age%3D5&age=5');
    assert.equal((await get('/c/aged?cc=max-age%3D5&age=5')).headers['x-cache'], 'MISS');
  });

  test('never stored: no-store, private, no-cache, Set-Cookie, Vary: *, uncacheable statuses', async () => {
    for (const query of ['cc=no-store', 'cc=private%2C%20max-age%3D60', 'cc=no-cache', 'cookie=1', 'vary=*', 'status=500', 'status=201']) {
      const path = `/never-${query.replace(/[^a-z0-9]/gi, '')}`;
      await get(`/c${path}?${query}`);
      const again = await get(`/c${path}?${query}`);
      assert.equal(again.headers['x-cache'], 'MISS', query);
      assert.equal(callsFor(path), 2, query);
    }
    // 404 is listed in cacheableStatuses on this route.
    await get('/c/nf?status=404');
    assert.equal((await get('/c/nf?status=404')).headers['x-cache'], 'HIT');
  });

  test('only GET and HEAD: other methods bypass the cache', async () => {
    await get('/c/post', { method: 'POST', body: 'x' });
    const again = await get('/c/post', { method: 'POST', body: 'x' });
    assert.equal(again.headers['x-cache'], 'BYPASS');
    assert.equal(callsFor('/post', 'POST'), 2);
  });

  test('requests with Authorization bypass the cache unless the route sets cacheAuthorized', async () => {
    await get('/c/authz', { headers: { authorization: 'Bearer a' } });
    const again = await get('/c/authz', { headers: { authorization: 'Bearer a' } });
    assert.equal(again.headers['x-cache'], 'BYPASS');
    assert.equal(callsFor('/authz'), 2);
    // An anonymous request is not answered with what an authorized one fetched either.
    assert.equal((await get('/c/authz')).headers['x-cache'], 'MISS');
    await get('/auth/authz2', { headers: { authorization: 'Bearer a' } });
    assert.equal((await get('/auth/authz2', { headers: { authorization: 'Bearer a' } })).headers['x-cache'], 'HIT');
  });

  test('an API key in X-API-Key bypasses the cache just like one in Authorization (decision 22)', async () => {
    await get('/c/keyed', { headers: { 'x-api-key': 'key-a' } });
    const other = await get('/c/keyed', { headers: { 'x-api-key': 'key-b' } });
    assert.equal(other.headers['x-cache'], 'BYPASS');
    assert.equal(other.json().n, 2, 'key B is not answered with what key A fetched');
    assert.equal((await get('/c/keyed')).headers['x-cache'], 'MISS');
  });

  test("the upstream's Vary is honoured: a different value of a varied header is a miss", async () => {
    const en = await get('/c/v?vary=X-Lang', { headers: { 'x-lang': 'en' } });
    assert.equal(en.headers['x-cache'], 'MISS');
    const enAgain = await get('/c/v?vary=X-Lang', { headers: { 'x-lang': 'en' } });
    assert.equal(enAgain.headers['x-cache'], 'HIT');
    const de = await get('/c/v?vary=X-Lang', { headers: { 'x-lang': 'de' } });
    assert.equal(de.headers['x-cache'], 'MISS');
    assert.equal(de.json().lang, 'de');
  });

  test('a hit goes through the response phase: header variables are fresh and excluded fields stay excluded', async () => {
    const miss = await get('/shaped/s', { headers: { 'x-correlation-id': 'first' } });
    const hit = await get('/shaped/s', { headers: { 'x-correlation-id': 'second' } });
    assert.equal(hit.headers['x-cache'], 'HIT');
    assert.equal(miss.headers['x-request'], 'first');
    assert.equal(hit.headers['x-request'], 'second');
    assert.equal(hit.json().secret, undefined);
    assert.deepEqual(hit.json(), miss.json());
  });

  test('stampede: 100 concurrent misses for one key make one upstream call and all get the body', async () => {
    hold = deferred();
    firstHeld = deferred();
    const all = Array.from({ length: 100 }, () => get('/c/stampede'));
    await withTimeout(firstHeld.promise, 10_000, 'the first miss never reached the upstream');
    // Give the other 99 a chance to queue behind the leader; correctness does not depend on it.
    await new Promise((r) => setTimeout(r, 300));
    hold.resolve();
    const responses = await Promise.all(all);
    hold = undefined;
    assert.ok(responses.every((r) => r.status === 200 && r.json().n === 1));
    assert.equal(callsFor('/stampede'), 1);
    assert.equal(responses.filter((r) => r.headers['x-cache'] === 'MISS').length, 1);
  });

  test('cache decisions are counted per route', async () => {
    const metrics = (await get('/metrics')).text;
    assert.match(metrics, /gateway_cache_lookups_total\{route="cached",result="HIT"\} \d+/);
    assert.match(metrics, /gateway_cache_lookups_total\{route="cached",result="BYPASS"\} \d+/);
  });
});
