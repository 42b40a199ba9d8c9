import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import {
  deferred,
  makeSelfSignedCert,
  request,
  startGatewayProcess,
  startUpstream,
  withTimeout,
  type GatewayProcess,
  type LoopbackUpstream,
} from '@gateway/testing';

interface Echo {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

describe('forwarding', () => {
  let upstream: LoopbackUpstream;
  let other: LoopbackUpstream;
  let secure: LoopbackUpstream;
  /** Hands each request to `onStream`, body unread (the streaming tests set it). */
  let streamer: LoopbackUpstream;
  let onStream: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => {
    res.writeHead(500);
    res.end();
  };
  let cert: ReturnType<typeof makeSelfSignedCert>;
  let gateway: GatewayProcess;

  before(async () => {
    upstream = await startUpstream();
    other = await startUpstream();
    cert = makeSelfSignedCert();
    secure = await startUpstream({ tls: { key: cert.key, cert: cert.cert } });
    streamer = await startUpstream({ streaming: (req, res) => onStream(req, res) });
    gateway = await startGatewayProcess({
      env: { NODE_EXTRA_CA_CERTS: cert.certPath },
      config: `
version: "1.0.0"
proxy: { host: 127.0.0.1, port: 8080 }
upstreams:
  - { name: main, url: "${upstream.origin}/base" }
  - { name: root, url: "${upstream.origin}" }
  - { name: other, url: "${other.origin}" }
  - { name: tls, url: "${secure.origin}/secure" }
  - { name: streamer, url: "${streamer.origin}" }
routes:
  - { path: /api/*, upstream: main }
  - { path: /exact/path, upstream: "${upstream.origin}/x" }
  - { path: /items/*/detail, upstream: root }
  - { path: /api/special/*, upstream: other, priority: 10 }
  - { path: /api/vip/*, upstream: other, priority: 90 }
  - { path: /only-get, upstream: root, methods: [GET] }
  - { path: /only-post, upstream: root, methods: [POST] }
  - { path: /keep/*, upstream: main, stripPath: false }
  - { path: /tls/*, upstream: tls }
  - { path: /disabled, upstream: root, enabled: false }
  - { path: /stream/*, upstream: streamer }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await Promise.all([upstream?.close(), other?.close(), secure?.close(), streamer?.close()]);
    cert?.remove();
  });

  const get = async (path: string, init: Parameters<typeof request>[1] = {}) => request(`${gateway.url}${path}`, init);

  test('prefix pattern: the literal prefix is replaced by the upstream path and the query is kept', async () => {
    const res = await get('/api/users/42?active=true&x=%20y');
    assert.equal(res.status, 200);
    assert.equal(res.json<Echo>().url, '/base/users/42?active=true&x=%20y');
    assert.equal((await get('/api')).json<Echo>().url, '/base');
    assert.equal((await get('/api/')).json<Echo>().url, '/base/');
  });

  test('exact pattern: the whole path is replaced', async () => {
    assert.equal((await get('/exact/path?q=1')).json<Echo>().url, '/x?q=1');
    assert.equal((await get('/exact/path/more')).status, 404);
  });

  test('wildcard segment pattern: the rest after the literal prefix is appended', async () => {
    assert.equal((await get('/items/7/detail')).json<Echo>().url, '/7/detail');
    assert.equal((await get('/items/7/other')).status, 404);
  });

  test('priority decides between overlapping patterns', async () => {
    // /api/special/* (priority 10) loses to /api/* (default 50); /api/vip/* (90) wins.
    const low = await get('/api/special/a');
    assert.equal(low.json<Echo>().url, '/base/special/a');
    assert.equal(other.requests.length, 0);
    const high = await get('/api/vip/a');
    assert.equal(high.json<Echo>().url, '/a');
    assert.equal(other.requests.length, 1);
  });

  test('methods: a route answers only its methods (HEAD follows GET); others are not matched', async () => {
    assert.equal((await get('/only-get')).status, 200);
    assert.equal((await get('/only-get', { method: 'HEAD' })).status, 200);
    const post = await get('/only-get', { method: 'POST', body: 'x' });
    assert.equal(post.status, 404);
    assert.deepEqual(Object.keys(post.json()).sort(), ['correlationId', 'error']);
    assert.equal((await get('/only-post', { method: 'POST', body: 'x' })).status, 200);
    assert.equal((await get('/only-post')).status, 404);
  });

  test('unmatched and disabled routes answer 404 with {error, correlationId}', async () => {
    for (const path of ['/nowhere', '/disabled']) {
      const res = await get(path, { headers: { 'x-correlation-id': 'trace-404' } });
      assert.equal(res.status, 404);
      assert.deepEqual(res.json(), { error: 'Not Found', correlationId: 'trace-404' });
    }
  });

  test('stripPath false forwards the whole original path after the upstream path', async () => {
    assert.equal((await get('/keep/a/b?z=1')).json<Echo>().url, '/base/keep/a/b?z=1');
  });

  test('POST bodies stream through in both directions, chunked and with a length', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 'a');
    const res = await get('/api/upload', { method: 'POST', body: big, headers: { 'content-type': 'text/plain' } });
    assert.equal(res.status, 200);
    const echo = res.json<Echo>();
    assert.equal(echo.method, 'POST');
    assert.equal(echo.body.length, big.length);

    // A chunked upload written in pieces arrives whole and in order.
    const chunked = await new Promise<string>((resolve, reject) => {
      const req = http.request(`${gateway.url}/api/chunks`, { method: 'PUT', agent: false });
      req.on('response', (r) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => (text += c));
        r.on('end', () => resolve(text));
      });
      req.on('error', reject);
      let i = 0;
      const tick = setInterval(() => {
        req.write(`part${i};`);
        i += 1;
        if (i === 5) {
          clearInterval(tick);
          req.end();
        }
      }, 20);
    });
    const body = (JSON.parse(chunked) as Echo).body;
    assert.equal(body, 'part0;part1;part2;part3;part4;');
  });

  test('bodies held for a slow client stay intact while other responses are read (the lean client reads into one shared buffer)', { timeout: 30000 }, async () => {
    // Every byte depends on the response and its position: a slice overwritten by a later read shows.
    const bodyOf = (id: number, size: number): Buffer => {
      const body = Buffer.allocUnsafe(size);
      for (let i = 0; i < size; i += 1) body[i] = (i * 7 + id * 13) & 0xff;
      return body;
    };
    onStream = (req, res) => {
      req.resume();
      const id = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('id'));
      const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('size'));
      const body = bodyOf(id, size);
      res.writeHead(200, { 'content-length': String(size) });
      // In pieces, so the gateway reads each response in several reads between the others'.
      let at = 0;
      const next = (): void => {
        if (at >= size) return;
        const piece = body.subarray(at, Math.min(size, at + 48 * 1024));
        at += piece.length;
        if (at >= size) res.end(piece);
        else if (res.write(piece)) setImmediate(next);
        else res.once('drain', next);
      };
      next();
    };
    // A slow client: a body larger than loopback's socket buffers (several MiB with autotuning) that it
    // starts reading only after the others are done, so the gateway's writes to it wait in node's
    // buffers (and its upstream pauses) while other upstream reads land in the shared buffer.
    const SLOW_SIZE = 24 * 1024 * 1024;
    const slow = new Promise<Buffer>((resolve, reject) => {
      const req = http.request(`${gateway.url}/stream/slow?id=1&size=${SLOW_SIZE}`, { agent: false });
      req.on('error', reject);
      req.on('response', (res) => {
        res.pause();
        const chunks: Buffer[] = [];
        setTimeout(() => {
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve(Buffer.concat(chunks)));
          res.resume();
        }, 1500);
        res.on('error', reject);
      });
      req.end();
    });
    const others = await Promise.all(Array.from({ length: 24 }, (_, k) => request(`${gateway.url}/stream/fast?id=${k + 2}&size=${(k % 3) * 20000 + 5000}`)));
    others.forEach((res, k) => {
      assert.equal(res.status, 200);
      assert.ok(res.body.equals(bodyOf(k + 2, (k % 3) * 20000 + 5000)), `response ${k + 2} arrived altered`);
    });
    const slowBody = await slow;
    assert.equal(slowBody.length, SLOW_SIZE);
    assert.ok(slowBody.equals(bodyOf(1, SLOW_SIZE)), 'the slow client\'s body arrived altered');
  });

  test('a response streams: the client gets the first chunk while the upstream response is still open', { timeout: 20000 }, async () => {
    const FIRST = 'first-chunk;';
    const REST = 'second-chunk;last-chunk';
    const clientHasFirst = deferred();
    let upstreamResponse: http.ServerResponse | undefined;
    onStream = (req, res) => {
      req.resume();
      upstreamResponse = res;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write(FIRST);
      // Waits for the test before the rest; gives up (and ends) after 8 s so nothing stays open.
      void withTimeout(clientHasFirst.promise, 8000, 'client signal').then(
        () => res.end(REST),
        () => res.end('upstream-gave-up'),
      );
    };
    const firstChunk = deferred<{ text: string; upstreamOpen: boolean }>();
    const whole = deferred<{ status: number; text: string }>();
    const req = http.request(`${gateway.url}/stream/down`, { agent: false });
    req.on('error', (error) => {
      firstChunk.reject(error);
      whole.reject(error);
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (text.length >= FIRST.length) firstChunk.resolve({ text, upstreamOpen: upstreamResponse?.writableEnded === false });
      });
      res.on('error', (error) => whole.reject(error));
      res.on('end', () => whole.resolve({ status: res.statusCode ?? 0, text }));
    });
    req.end();
    try {
      const first = await withTimeout(
        firstChunk.promise,
        4000,
        'the first response chunk did not reach the client while the upstream held its response open: the gateway buffers response bodies',
      );
      assert.equal(first.text, FIRST);
      assert.equal(first.upstreamOpen, true, 'the upstream response was still open when the client read the first chunk');
      clientHasFirst.resolve();
      const res = await withTimeout(whole.promise, 5000, 'the rest of the streamed response never arrived');
      assert.equal(res.status, 200);
      assert.equal(res.text, FIRST + REST);
    } finally {
      clientHasFirst.resolve();
      req.destroy();
    }
  });

  test('a chunked upload streams: the upstream gets the first chunk before the client writes the rest', { timeout: 20000 }, async () => {
    const PARTS = ['first-part;', 'second-part;', 'third-part'];
    const upstreamHasFirst = deferred<string>();
    const upstreamBody = deferred<{ body: string; headers: http.IncomingHttpHeaders }>();
    onStream = (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        body += chunk;
        if (body.length >= PARTS[0].length) upstreamHasFirst.resolve(body);
      });
      req.on('error', () => undefined);
      req.on('end', () => {
        upstreamBody.resolve({ body, headers: req.headers });
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`got ${body.length} bytes`);
      });
    };
    const response = deferred<{ status: number; text: string }>();
    const req = http.request(`${gateway.url}/stream/up`, { method: 'PUT', agent: false, headers: { 'content-type': 'text/plain' } });
    req.on('error', (error) => response.reject(error));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', (error) => response.reject(error));
      res.on('end', () => response.resolve({ status: res.statusCode ?? 0, text }));
    });
    try {
      // No content-length: Node sends the headers with this first chunk, chunked-encoded.
      req.write(PARTS[0]);
      const firstSeen = await withTimeout(
        upstreamHasFirst.promise,
        4000,
        'the upstream did not receive the first chunk of an unfinished chunked upload: the gateway buffers request bodies',
      );
      assert.equal(firstSeen, PARTS[0]);
      req.write(PARTS[1]);
      req.end(PARTS[2]);
      const seen = await withTimeout(upstreamBody.promise, 5000, 'the upstream never saw the end of the upload');
      assert.equal(seen.body, PARTS.join(''));
      assert.equal(seen.headers['transfer-encoding'], 'chunked');
      const res = await withTimeout(response.promise, 5000, 'no response to the streamed upload');
      assert.equal(res.status, 200);
      assert.equal(res.text, `got ${PARTS.join('').length} bytes`);
    } finally {
      req.destroy();
    }
  });

  test('hop-by-hop headers are removed towards the upstream, end-to-end ones kept', async () => {
    const res = await get('/api/headers', {
      headers: {
        connection: 'keep-alive, x-drop-me',
        'keep-alive': 'timeout=5',
        'x-drop-me': 'secret-hop',
        te: 'trailers',
        'proxy-authorization': 'Basic abc',
        'x-custom': 'kept',
      },
      agent: new http.Agent({ keepAlive: true }),
    });
    const seen = res.json<Echo>().headers;
    assert.equal(seen['x-custom'], 'kept');
    for (const name of ['x-drop-me', 'keep-alive', 'te', 'proxy-authorization']) assert.equal(seen[name], undefined, name);
  });

  test('hop-by-hop headers from the upstream never reach the client', async () => {
    const hop = await startUpstream({
      handler: (_req, res) => {
        // Raw list: mixed case, repeated fields, and copies of the headers the gateway sets itself.
        res.writeHead(200, [
          'Connection', 'X-Upstream-Hop',
          'X-Upstream-Hop', 'no',
          'Keep-Alive', 'timeout=99',
          'x-end', 'yes',
          'Set-Cookie', 'a=1',
          'Set-Cookie', 'b=2',
          'X-Correlation-ID', 'from-upstream',
          'X-API-Version', '0.0.1',
          'Content-Length', '2',
        ]);
        res.end('ok');
      },
    });
    const g = await startGatewayProcess({
      config: `version: "1.0.0"\nroutes:\n  - { path: /h, upstream: "${hop.origin}" }\n`,
    });
    try {
      const res = await request(`${g.url}/h`);
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-end'], 'yes');
      assert.equal(res.headers['x-upstream-hop'], undefined);
      assert.notEqual(res.headers['keep-alive'], 'timeout=99');
      assert.deepEqual(res.headers['set-cookie'], ['a=1', 'b=2'], 'repeated fields stay separate lines');
      // The gateway's own headers replace the upstream's copies: one line each.
      const lines = (name: string): string[] => res.rawHeaders.filter((_, i) => i % 2 === 1 && res.rawHeaders[i - 1]?.toLowerCase() === name);
      assert.equal(lines('x-correlation-id').length, 1);
      assert.notEqual(lines('x-correlation-id')[0], 'from-upstream');
      assert.deepEqual(lines('x-api-version'), [res.headers['x-api-version']]);
      assert.notEqual(res.headers['x-api-version'], '0.0.1');
    } finally {
      await g.stop();
      await hop.close();
    }
  });

  test('X-Forwarded-For is appended, X-Forwarded-Proto and -Host set, Host is the upstream authority', async () => {
    const res = await get('/api/xff', { headers: { 'x-forwarded-for': '203.0.113.9', host: 'gw.example.test' } });
    const seen = res.json<Echo>().headers;
    assert.equal(seen['x-forwarded-for'], '203.0.113.9, 127.0.0.1');
    assert.equal(seen['x-forwarded-proto'], 'http');
    assert.equal(seen['x-forwarded-host'], 'gw.example.test');
    assert.equal(seen.host, `127.0.0.1:${upstream.port}`);
    const plain = (await get('/api/xff')).json<Echo>().headers;
    assert.equal(plain['x-forwarded-for'], '127.0.0.1');
  });

  test('correlation id: a safe client id is echoed and sent upstream; otherwise one is generated', async () => {
    const echoed = await get('/api/c', { headers: { 'x-correlation-id': 'abc-123' } });
    assert.equal(echoed.headers['x-correlation-id'], 'abc-123');
    assert.equal(echoed.json<Echo>().headers['x-correlation-id'], 'abc-123');

    const generated = await get('/api/c');
    const id = generated.headers['x-correlation-id'] as string;
    assert.match(id, /^req-\d{13}-[a-z0-9]+$/);
    assert.equal(generated.json<Echo>().headers['x-correlation-id'], id);

    for (const bad of ['x'.repeat(129), 'has space', 'semi;colon']) {
      const replaced = await get('/api/c', { headers: { 'x-correlation-id': bad } });
      assert.match(replaced.headers['x-correlation-id'] as string, /^req-\d{13}-/);
    }
  });

  test('version headers are on proxied responses, local errors and ops endpoints', async () => {
    for (const path of ['/api/v', '/nowhere', '/health', '/version', '/metrics']) {
      const res = await get(path);
      assert.equal(res.headers['x-api-version'], '1.0.0', path);
      assert.equal(res.headers['x-config-version'], '1.0.0', path);
      assert.ok(res.headers['x-correlation-id'], path);
    }
  });

  test('HTTPS upstreams are verified and forwarded to', async () => {
    const res = await get('/tls/deep?x=1');
    assert.equal(res.status, 200);
    assert.equal(res.json<Echo>().url, '/secure/deep?x=1');
  });

  test('upstream connections are kept alive and reused', async () => {
    const before = upstream.requests.length;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 20; i += 1) assert.equal((await get('/api/reuse', { agent })).status, 200);
    agent.destroy();
    assert.equal(upstream.requests.length - before, 20);
    assert.ok(upstream.openSockets <= 3, `expected reused upstream sockets, saw ${upstream.openSockets} open`);
  });

  test('idle upstream sockets are closed after timeout.keepAlive, before the upstream would close them', async () => {
    const patient = await startUpstream({ keepAliveTimeout: 60000 });
    const g = await startGatewayProcess({
      config: `version: "1.0.0"\nroutes:\n  - { path: /idle/*, upstream: "${patient.origin}", timeout: { keepAlive: 500 } }\n`,
    });
    try {
      assert.equal((await request(`${g.url}/idle/a`)).status, 200);
      assert.equal(patient.openSockets, 1, 'the upstream socket is kept alive after the request');
      for (let i = 0; i < 40 && patient.openSockets > 0; i += 1) await new Promise((r) => setTimeout(r, 100));
      assert.equal(patient.openSockets, 0, 'the gateway closed its idle upstream socket');
      assert.equal((await request(`${g.url}/idle/b`)).status, 200, 'and opens a new one when needed');
    } finally {
      await g.stop();
      await patient.close();
    }
  });
});
