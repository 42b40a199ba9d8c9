import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import {
  deferred,
  request,
  startGatewayProcess,
  startUpstream,
  waitForConnectionRefused,
  withTimeout,
  type ClientResponse,
  type Deferred,
  type GatewayProcess,
  type LoopbackUpstream,
} from '@gateway/testing';

/**
 * RFC 9111 behaviour of the response cache against loopback upstreams that count their calls.
 * The upstream answers `{ n: <calls for this method and path> }` and takes its response headers
 * from the query: cc (Cache-Control), etag, lm (Last-Modified), expires, date, status, loc
 * (Location). With an ETag or Last-Modified it answers a matching conditional with 304.
 */
describe('response cache: RFC 9111 correctness', () => {
  let upstream: LoopbackUpstream;
  let stoppable: LoopbackUpstream;
  let gateway: GatewayProcess;
  const calls = new Map<string, number>();
  const seen = new Map<string, http.IncomingHttpHeaders>();
  /** Paths answering 503 (stale-if-error). */
  const failing = new Set<string>();
  /** Paths whose calls after the first wait for this (stale-while-revalidate single flight). */
  const held = new Map<string, Deferred<void>>();

  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = `${req.method} ${url.pathname}`;
    const n = (calls.get(key) ?? 0) + 1;
    calls.set(key, n);
    seen.set(key, req.headers);
    const q = url.searchParams;
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' };
    const fromQuery: Array<[string, string]> = [['cc', 'cache-control'], ['etag', 'etag'], ['lm', 'last-modified'], ['expires', 'expires'], ['date', 'date'], ['loc', 'location']];
    for (const [param, header] of fromQuery) if (q.has(param)) headers[header] = q.get(param) as string;
    const send = (): void => {
      if (failing.has(url.pathname)) {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ n, failing: true }));
        return;
      }
      const etag = q.get('etag');
      const lm = q.get('lm');
      if ((etag !== null && req.headers['if-none-match'] === etag) || (etag === null && lm !== null && req.headers['if-modified-since'] === lm)) {
        delete headers['content-type'];
        res.writeHead(304, headers);
        res.end();
        return;
      }
      res.writeHead(Number(q.get('status') ?? 200), headers);
      res.end(JSON.stringify({ n, path: url.pathname }));
    };
    const hold = held.get(url.pathname);
    if (hold !== undefined && n > 1) void hold.promise.then(send);
    else send();
  };

  const callsFor = (path: string, method = 'GET'): number => calls.get(`${method} ${path}`) ?? 0;

  before(async () => {
    upstream = await startUpstream({ handler: (req, res) => handler(req, res) });
    stoppable = await startUpstream({ handler: (req, res) => handler(req, res) });
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
proxy: { host: 127.0.0.1, port: 8080 }
routes:
  - { id: cached, path: /c/*, upstream: "${upstream.origin}", cache: { enabled: true, ttl: 60000 } }
  - { id: writer, path: /w/*, methods: [POST], upstream: "${upstream.origin}", cache: { enabled: false } }
  - { id: swr, path: /swr/*, upstream: "${upstream.origin}", cache: { enabled: true, ttl: 60000, staleWhileRevalidate: 60 } }
  - { id: sie, path: /sie/*, upstream: "${upstream.origin}", cache: { enabled: true, ttl: 60000, staleIfError: 60 } }
  - { id: slow, path: /slow/*, upstream: "${upstream.origin}", timeout: { request: 500 }, cache: { enabled: true, ttl: 60000, staleIfError: 60 } }
  - { id: down, path: /down/*, upstream: "${stoppable.origin}", cache: { enabled: true, ttl: 60000, staleIfError: 60 } }
  - id: retried
    path: /retried/*
    upstream: "${upstream.origin}"
    retry: { enabled: true, attempts: 2, initialDelay: 10, maxDelay: 10, jitter: false }
    cache: { enabled: true, ttl: 60000, cacheableStatuses: [200, 503] }
  - { id: once, path: /once/*, upstream: "${upstream.origin}", retry: { enabled: false }, cache: { enabled: true, ttl: 60000, cacheableStatuses: [200, 503] } }
`,
    });
  });

  after(async () => {
    for (const hold of held.values()) hold.resolve();
    await gateway?.stop();
    await upstream?.close();
    await stoppable?.close();
  });

  const get = (path: string, init: Parameters<typeof request>[1] = {}): Promise<ClientResponse> => request(`${gateway.url}${path}`, init);
  const xCache = async (path: string): Promise<string> => (await get(path)).headers['x-cache'] as string;

  /** Requests `path` until its answer is no longer a fresh hit (bounded): the first answer after it went stale. */
  const untilNotHit = async (path: string, init: Parameters<typeof request>[1] = {}): Promise<ClientResponse> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const response = await get(path, init);
      if (response.headers['x-cache'] !== 'HIT' || Date.now() > deadline) return response;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  test('a successful POST, PUT, PATCH or DELETE invalidates the stored responses of its path, whatever their query', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const path = `/c/inv-${method.toLowerCase()}`;
      assert.equal(await xCache(path), 'MISS');
      assert.equal(await xCache(`${path}?page=2`), 'MISS');
      assert.equal(await xCache(path), 'HIT');
      const write = await get(path, method === 'DELETE' ? { method } : { method, body: 'x' });
      assert.equal(write.headers['x-cache'], 'BYPASS', `${method} ${write.status} ${write.text}`);
      assert.equal(await xCache(path), 'MISS', method);
      assert.equal(await xCache(`${path}?page=2`), 'MISS', `${method}: another query of the same path`);
      assert.equal(callsFor(path.slice(2)), 4, method);
    }
  });

  test('a failed write invalidates nothing', async () => {
    await get('/c/kept');
    assert.equal((await get('/c/kept?status=500', { method: 'POST', body: 'x' })).status, 500);
    assert.equal((await get('/c/kept?status=404', { method: 'DELETE' })).status, 404);
    assert.equal(await xCache('/c/kept'), 'HIT');
  });

  test('a same-origin Location or Content-Location is invalidated too; another origin is not', async () => {
    await get('/c/items/7');
    await get('/c/items/8');
    assert.equal(await xCache('/c/items/7'), 'HIT');
    await get(`/c/items?loc=${encodeURIComponent('/c/items/7')}`, { method: 'POST', body: '{}' });
    assert.equal(await xCache('/c/items/7'), 'MISS');
    // An absolute Location naming the gateway's own origin (the Host the client sent).
    await get(`/c/items?loc=${encodeURIComponent(`${gateway.url}/c/items/7`)}`, { method: 'POST', body: '{}' });
    assert.equal(await xCache('/c/items/7'), 'MISS');
    await get(`/c/items?loc=${encodeURIComponent('http://other.example/c/items/8')}`, { method: 'POST', body: '{}' });
    assert.equal(await xCache('/c/items/8'), 'HIT', 'another origin invalidates nothing');
    // A location no URL parser accepts costs nothing but its own invalidation.
    assert.equal((await get(`/c/items?loc=${encodeURIComponent('http://[::1')}`, { method: 'POST', body: '{}' })).status, 200);
    assert.equal(await xCache('/c/items/8'), 'HIT');
  });

  test('a write through a route with its cache switched off invalidates what a caching route stored', async () => {
    await get('/c/shared');
    assert.equal(await xCache('/c/shared'), 'HIT');
    await get(`/w/create?loc=${encodeURIComponent('/c/shared')}`, { method: 'POST', body: '{}' });
    assert.equal(await xCache('/c/shared'), 'MISS');
  });

  test('Expires is read relative to Date; s-maxage shorter than ttl wins over max-age', async () => {
    const date = new Date(Date.now() - 3_600_000);
    const dated = `date=${encodeURIComponent(date.toUTCString())}`;
    // An hour in the past by the clock, a minute after the upstream's Date: fresh for a minute.
    const minute = `/c/exp-minute?${dated}&expires=${encodeURIComponent(new Date(date.getTime() + 60_000).toUTCString())}`;
    await get(minute);
    assert.equal(await xCache(minute), 'HIT');
    const past = `/c/exp-past?${dated}&expires=${encodeURIComponent(new Date(date.getTime() - 1000).toUTCString())}`;
    await get(past);
    assert.equal(await xCache(past), 'MISS', 'expired before it arrived: not stored');
    const invalid = '/c/exp-invalid?expires=0';
    await get(invalid);
    assert.equal(await xCache(invalid), 'MISS');
    const shared = `/c/smaxage?cc=${encodeURIComponent('max-age=600, s-maxage=1')}`;
    await get(shared);
    assert.equal(await xCache(shared), 'HIT');
    assert.equal((await untilNotHit(shared)).headers['x-cache'], 'MISS');
    assert.equal(callsFor('/smaxage'), 2);
  });

  test('a stale entry with an ETag is revalidated with If-None-Match; a 304 refreshes it and the client gets the stored 200', async () => {
    const path = `/c/etag?cc=${encodeURIComponent('max-age=3')}&etag=${encodeURIComponent('"v1"')}`;
    const first = await get(path);
    assert.equal(first.headers['x-cache'], 'MISS');
    const revalidated = await untilNotHit(path);
    assert.equal(revalidated.headers['x-cache'], 'REVALIDATED');
    assert.equal(revalidated.status, 200);
    assert.deepEqual(revalidated.json(), first.json(), 'the stored body');
    assert.equal(revalidated.headers.etag, '"v1"');
    assert.equal(seen.get('GET /etag')?.['if-none-match'], '"v1"');
    assert.equal(callsFor('/etag'), 2);
    assert.equal(await xCache(path), 'HIT', 'the 304 restarted its lifetime');
    assert.equal(callsFor('/etag'), 2);
  });

  test('no-cache with a validator is stored but revalidated before every use', async () => {
    const path = `/c/nocache?cc=no-cache&etag=${encodeURIComponent('"n1"')}`;
    const first = await get(path);
    assert.equal(first.headers['x-cache'], 'MISS');
    for (let i = 0; i < 2; i += 1) {
      const again = await get(path);
      assert.equal(again.headers['x-cache'], 'REVALIDATED');
      assert.deepEqual(again.json(), first.json());
    }
    assert.equal(callsFor('/nocache'), 3);
    assert.equal(seen.get('GET /nocache')?.['if-none-match'], '"n1"');
  });

  test('Last-Modified revalidates with If-Modified-Since; a client conditional the entry satisfies gets a 304 from the gateway', async () => {
    const lm = 'Fri, 27 Nov 2026 08:00:00 GMT';
    const path = `/c/lm?cc=${encodeURIComponent('max-age=3')}&lm=${encodeURIComponent(lm)}`;
    await get(path);
    const revalidated = await untilNotHit(path, { headers: { 'if-modified-since': lm } });
    assert.equal(revalidated.headers['x-cache'], 'REVALIDATED');
    assert.equal(revalidated.status, 304, "the client's own conditional holds for the refreshed entry");
    assert.equal(revalidated.body.length, 0);
    assert.equal(seen.get('GET /lm')?.['if-modified-since'], lm);
    const hit = await get(path, { headers: { 'if-modified-since': 'Fri, 27 Nov 2026 07:00:00 GMT' } });
    assert.equal(hit.status, 200, 'an older copy gets the full response');
    assert.equal(hit.headers['x-cache'], 'HIT');
    const etagged = `/c/inm?etag=${encodeURIComponent('W/"e1"')}`;
    await get(etagged);
    const notModified = await get(etagged, { headers: { 'if-none-match': '"e0", "e1"' } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.headers['x-cache'], 'HIT');
    assert.equal(callsFor('/inm'), 1);
  });

  test('stale-while-revalidate: stale answers at once while exactly one background request refreshes', async () => {
    const path = `/swr/held?cc=${encodeURIComponent('max-age=1')}`;
    const refresh = deferred<void>();
    held.set('/held', refresh);
    assert.equal((await get(path)).json().n, 1);
    const stale = await untilNotHit(path);
    assert.equal(stale.headers['x-cache'], 'STALE');
    assert.equal(stale.json().n, 1);
    assert.match(stale.headers.age as string, /^\d+$/);
    // The refresh is held at the upstream: everything meanwhile is answered stale, and nothing else goes upstream.
    const burst = await withTimeout(Promise.all(Array.from({ length: 20 }, () => get(path))), 15_000, 'stale answers waited for the refresh');
    assert.ok(burst.every((r) => r.headers['x-cache'] === 'STALE' && r.json().n === 1));
    assert.equal(callsFor('/held'), 2, 'one original call and one background refresh');
    refresh.resolve();
    const deadline = Date.now() + 15_000;
    let refreshed = await get(path);
    while (refreshed.json().n !== 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      refreshed = await get(path);
    }
    assert.equal(refreshed.json().n, 2);
    assert.notEqual(refreshed.headers['x-cache'], 'MISS', 'the refreshed entry answers');
  });

  test('stale-if-error: a stale entry answers when the upstream answers 503', async () => {
    const path = `/sie/a?cc=${encodeURIComponent('max-age=1')}`;
    await get(path);
    failing.add('/a');
    const stale = await untilNotHit(path);
    failing.delete('/a');
    assert.equal(stale.status, 200);
    assert.equal(stale.headers['x-cache'], 'STALE');
    assert.equal(stale.json().n, 1);
    const asked = callsFor('/a');
    assert.ok(asked >= 2, 'the upstream was asked (and retried) and failed');
    const recovered = await get(path);
    assert.equal(recovered.headers['x-cache'], 'MISS');
    assert.equal(recovered.json().n, asked + 1);
  });

  test('stale-if-error: a stale entry answers when the upstream times out', async () => {
    const path = `/slow/t?cc=${encodeURIComponent('max-age=1')}`;
    // Every call after the first hangs past the route's 500 ms request timeout.
    held.set('/t', deferred<void>());
    await get(path);
    const stale = await untilNotHit(path);
    assert.equal(stale.status, 200);
    assert.equal(stale.headers['x-cache'], 'STALE');
    assert.equal(stale.json().n, 1);
    assert.equal(callsFor('/t'), 2);
  });

  test('stale-if-error with the upstream stopped; must-revalidate answers 504 instead of the stale entry', async () => {
    const plain = `/down/plain?cc=${encodeURIComponent('max-age=1')}`;
    const strict = `/down/strict?cc=${encodeURIComponent('max-age=1, must-revalidate')}`;
    await get(plain);
    await get(strict);
    assert.equal(await xCache(strict), 'HIT');
    await stoppable.close();
    await waitForConnectionRefused(stoppable.port);
    const stale = await untilNotHit(plain);
    assert.equal(stale.status, 200);
    assert.equal(stale.headers['x-cache'], 'STALE');
    assert.equal(stale.json().n, 1);
    const refused = await untilNotHit(strict);
    assert.equal(refused.status, 504);
    assert.equal(refused.json().error, 'Gateway Timeout');
    assert.equal(refused.headers['x-cache'], 'MISS');
  });

  test('a 503 the retry policy retried is never stored, though the route lists 503', async () => {
    failing.add('/r503');
    const first = await get('/retried/r503');
    const second = await get('/retried/r503');
    failing.delete('/r503');
    assert.equal(first.status, 503);
    assert.equal(second.status, 503);
    assert.equal(second.headers['x-cache'], 'MISS');
    assert.equal(callsFor('/r503'), 6, 'three attempts each');
    // The same 503 on a route without retries is stored as the route asks.
    failing.add('/o503');
    await get('/once/o503');
    const stored = await get('/once/o503');
    failing.delete('/o503');
    assert.equal(stored.headers['x-cache'], 'HIT');
    assert.equal(callsFor('/o503'), 1);
  });
});
