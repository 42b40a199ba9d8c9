import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import WebSocket from 'ws';
import { basicHash, echoHandler, makeSelfSignedCert, startGatewayProcess, startUpstream, withTimeout, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { errorCode, FRAME, getHeaders, rawH2Session, rstStream } from './raw-h2';
import { h2Connect, h2Request, httpsRequest, tlsPortOf } from './tls-clients';
import { startEchoUpstream, type EchoUpstream } from './websocket-echo';

/*
 * HTTP/2 on the HTTPS listener (docs/tls.md): requests from node's http2 client (and hand-written
 * frames for the abuse cases) through a real `gateway start` to HTTP/1.1 upstreams on loopback.
 */

type Cert = ReturnType<typeof makeSelfSignedCert>;

const MAX_HEADER_SIZE = 4096;
const MAX_BODY_SIZE = 1024;
const REQUEST_TIMEOUT_MS = 1500;

const BASIC_HASH = basicHash('correct horse');

interface Echoed {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

describe('HTTP/2 through the gateway', () => {
  let cert: Cert;
  let upstream: LoopbackUpstream;
  let echo: EchoUpstream;
  let gateway: GatewayProcess;
  let port: number;
  let session: http2.ClientHttp2Session;
  let flaky = 0;
  let holding = 0;
  let peakHolding = 0;

  before(async () => {
    cert = makeSelfSignedCert(['gw.test']);
    upstream = await startUpstream({
      handler: (req, res, body) => {
        if (req.url === '/flaky') {
          flaky += 1;
          res.writeHead(flaky % 2 === 1 ? 503 : 200).end(`attempt ${flaky}`);
        } else if (req.url === '/hop') {
          // Connection-specific fields an HTTP/1.1 upstream may send: none may reach an HTTP/2 client.
          res.writeHead(200, { connection: 'keep-alive, x-hop', 'keep-alive': 'timeout=5', 'x-hop': 'listed', 'x-kept': 'yes', 'set-cookie': ['a=1', 'b=2'] });
          res.write('chunk one ');
          res.end('chunk two');
        } else if (req.url === '/shaped') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ visible: 1, secret: 'hidden', seen: req.headers['x-added'] }));
        } else if (req.url?.startsWith('/hold')) {
          holding += 1;
          peakHolding = Math.max(peakHolding, holding);
          setTimeout(() => {
            holding -= 1;
            res.end('held');
          }, 600);
        } else if (req.url === '/slow') {
          setTimeout(() => res.end('late'), 3000);
        } else echoHandler(req, res, body);
      },
    });
    echo = await startEchoUpstream();
    const o = upstream.origin;
    gateway = await startGatewayProcess({
      config: `version: "1.0.0"
proxy:
  maxHeaderSize: ${MAX_HEADER_SIZE}
  maxBodySize: ${MAX_BODY_SIZE}
  requestTimeout: ${REQUEST_TIMEOUT_MS}
  headersTimeout: 1000
  tls:
    port: 0
    certificates:
      - { certFile: "${cert.certPath}", keyFile: "${cert.keyPath}" }
routes:
  - { id: echo, path: /echo/*, upstream: "${o}", stripPath: false }
  - { id: hop, path: /hop, upstream: "${o}", stripPath: false }
  - { id: limited, path: /limited, upstream: "${o}", stripPath: false, rateLimit: { enabled: true, max: 2, windowMs: 60000 } }
  - { id: basic, path: /basic, upstream: "${o}", stripPath: false, auth: { enabled: true, type: basic, basic: { users: { alice: "${BASIC_HASH}" } } } }
  - { id: cached, path: /cached, upstream: "${o}", stripPath: false, cache: { enabled: true, ttl: 60000 } }
  - id: shaped
    path: /shaped
    upstream: "${o}"
    stripPath: false
    headers: { request: { set: { X-Added: "by gateway" } }, response: { set: { X-Served: "gw" } } }
    transform: { response: { body: { exclude: [secret] } } }
  - { id: retried, path: /flaky, upstream: "${o}", stripPath: false, retry: { enabled: true, attempts: 2, initialDelay: 10 } }
  - { id: timed, path: /slow, upstream: "${o}", stripPath: false, timeout: { request: 300 } }
  - { id: denied, path: /denied, upstream: "${o}", stripPath: false, ipRestriction: { deny: ["127.0.0.1"] } }
  - { id: cors, path: /cors, upstream: "${o}", stripPath: false, cors: { origins: ["https://app.example"] } }
  - { id: hold, path: /hold/*, upstream: "${o}", stripPath: false }
  - { id: ws, path: /ws, upstream: "${echo.origin}", stripPath: false, websocket: true }
`,
      // The last test stops it: no drain delay, so in-flight requests meet the drain itself.
      env: { DRAIN_DELAY_SECONDS: '0', DRAIN_TIMEOUT_SECONDS: '20' },
    });
    port = tlsPortOf(gateway);
    session = await h2Connect(port);
    session.once('goaway', () => (goneAway = true));
  });

  after(async () => {
    session?.close();
    await gateway?.stop();
    await upstream?.close();
    await echo?.close();
    cert?.remove();
  });

  let goneAway = false;
  /** On the shared session, opened again once the gateway sent GOAWAY (idle for keepAliveTimeout), as a client would. */
  const live = async (): Promise<http2.ClientHttp2Session> => {
    if (goneAway || session.closed || session.destroyed) {
      session.destroy();
      session = await h2Connect(port);
      goneAway = false;
      session.once('goaway', () => (goneAway = true));
    }
    return session;
  };
  const h2 = async (headers: http2.OutgoingHttpHeaders, body?: string | string[]): ReturnType<typeof h2Request> => h2Request(await live(), headers, body);

  test('maps the request to HTTP/1.1: Host from :authority, no pseudo-headers, cookies joined, a body of unknown length chunked', async () => {
    const answer = await h2({ ':method': 'POST', ':path': '/echo/a?b=1', cookie: ['a=1', 'b=2'], 'x-client': 'yes' }, ['first ', 'second']);
    assert.equal(answer.status, 200);
    const seen = JSON.parse(answer.body) as Echoed;
    assert.equal(seen.method, 'POST');
    assert.equal(seen.url, '/echo/a?b=1');
    assert.equal(seen.body, 'first second');
    assert.equal(seen.headers['cookie'], 'a=1; b=2');
    assert.equal(seen.headers['host'], `127.0.0.1:${upstream.port}`);
    assert.equal(seen.headers['x-forwarded-host'], `127.0.0.1:${port}`);
    assert.equal(seen.headers['x-forwarded-proto'], 'https');
    assert.equal(seen.headers['x-client'], 'yes');
    assert.equal(seen.headers['transfer-encoding'], 'chunked');
    assert.equal(Object.keys(seen.headers).some((name) => name.startsWith(':')), false);
    const raw = upstream.requests.at(-1)?.rawHeaders ?? [];
    assert.equal(raw.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'host').length, 1);
    assert.match(answer.headers['x-correlation-id'] as string, /\S/);
    // Recorded as a complete 200, not as a client gone away (the edge gives HTTP/2 responses node:http's writableFinished).
    const metrics = (await h2({ ':path': '/metrics' })).body;
    assert.match(metrics, /^gateway_requests_total\{route="echo",method="POST",status="200"\} [1-9]/m);
    assert.doesNotMatch(metrics, /status="499"/);
  });

  test('maps the response back: connection-specific fields dropped, the others and set-cookie kept, the body streamed', async () => {
    const answer = await h2({ ':path': '/hop' });
    assert.equal(answer.status, 200);
    assert.equal(answer.body, 'chunk one chunk two');
    for (const name of ['connection', 'keep-alive', 'transfer-encoding', 'x-hop']) assert.equal(answer.headers[name], undefined, name);
    assert.equal(answer.headers['x-kept'], 'yes');
    assert.deepEqual(answer.headers['set-cookie'], ['a=1', 'b=2']);
  });

  test('every policy applies to HTTP/2 requests: rate limit, auth, cache, headers and transform, retry, timeout, body size, IP rules, CORS', async () => {
    assert.deepEqual([(await h2({ ':path': '/limited' })).status, (await h2({ ':path': '/limited' })).status, (await h2({ ':path': '/limited' })).status], [200, 200, 429]);

    assert.equal((await h2({ ':path': '/basic' })).status, 401);
    assert.equal((await h2({ ':path': '/basic', authorization: `Basic ${Buffer.from('alice:correct horse').toString('base64')}` })).status, 200);

    assert.equal((await h2({ ':path': '/cached' })).headers['x-cache'], 'MISS');
    assert.equal((await h2({ ':path': '/cached' })).headers['x-cache'], 'HIT');

    const shaped = await h2({ ':path': '/shaped' });
    assert.equal(shaped.headers['x-served'], 'gw');
    assert.deepEqual(JSON.parse(shaped.body), { visible: 1, seen: 'by gateway' });

    const retried = await h2({ ':path': '/flaky' });
    assert.equal(retried.status, 200);
    assert.equal(retried.body, `attempt ${flaky}`);

    const late = await h2({ ':path': '/slow' });
    assert.equal(late.status, 504);
    assert.equal(JSON.parse(late.body).error, 'Gateway Timeout');

    const large = await h2({ ':method': 'POST', ':path': '/echo/big', 'content-length': String(MAX_BODY_SIZE * 2) }, 'x'.repeat(MAX_BODY_SIZE * 2));
    assert.equal(large.status, 413);
    const largeChunked = await h2({ ':method': 'POST', ':path': '/echo/big' }, ['x'.repeat(MAX_BODY_SIZE), 'y'.repeat(MAX_BODY_SIZE)]);
    assert.equal(largeChunked.status, 413);

    assert.equal((await h2({ ':path': '/denied' })).status, 403);

    const preflight = await h2({ ':method': 'OPTIONS', ':path': '/cors', origin: 'https://app.example', 'access-control-request-method': 'GET' });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://app.example');
    // The session that carried all of these is still usable.
    assert.equal((await h2({ ':path': '/echo/after' })).status, 200);
  });

  test('CONNECT over HTTP/2 is refused like CONNECT over HTTP/1.1 (a reverse proxy only), and the gateway serves on', async () => {
    const stream = (await live()).request({ ':method': 'CONNECT', ':authority': 'elsewhere.example:443' }, { endStream: false });
    stream.on('error', () => undefined);
    const head = await withTimeout(new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('response', resolve)), 10_000, 'CONNECT answer');
    assert.equal(head[':status'], 405);
    stream.close();
    assert.equal((await h2({ ':path': '/echo/after-connect' })).status, 200);
  });

  test('a client that resets its stream is a client gone away: the upstream request is cut and 499 recorded', async () => {
    const abortedBefore = upstream.aborted;
    holding = 0;
    const stream = (await live()).request({ ':path': '/hold/cancelled' });
    stream.on('error', () => undefined);
    for (let i = 0; i < 200 && holding === 0; i += 1) await new Promise((r) => setTimeout(r, 10));
    assert.equal(holding, 1, 'the request reached the upstream');
    stream.close(http2.constants.NGHTTP2_CANCEL);
    for (let i = 0; i < 200 && upstream.aborted === abortedBefore; i += 1) await new Promise((r) => setTimeout(r, 10));
    assert.equal(upstream.aborted, abortedBefore + 1, 'the upstream request was cut');
    // node's own writableFinished of an HTTP/2 response is true once the stream closed, cut or not.
    assert.match((await h2({ ':path': '/metrics' })).body, /^gateway_requests_total\{route="hold",method="GET",status="499"\} 1$/m);
  });

  test('a request body still arriving after requestTimeout gets 408 with the spec body', async () => {
    const stream = (await live()).request({ ':method': 'POST', ':path': '/echo/stalled' }, { endStream: false });
    stream.write('partial');
    const head = await withTimeout(new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('response', resolve)), REQUEST_TIMEOUT_MS * 10, '408');
    assert.equal(head[':status'], 408);
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Promise((resolve) => stream.once('close', resolve));
    assert.equal(JSON.parse(Buffer.concat(chunks).toString()).error, 'Request Timeout');
  });

  test('a header list larger than proxy.maxHeaderSize is refused: 431, or the stream reset once the limit is acknowledged', async () => {
    assert.equal((await live()).remoteSettings.maxHeaderListSize, MAX_HEADER_SIZE);
    // node resets the stream itself (ENHANCE_YOUR_CALM) once the client acknowledged the limit;
    // before that, the gateway answers 431 with the spec body.
    const outcome = await h2({ ':path': '/echo/big-header', 'x-big': 'a'.repeat(MAX_HEADER_SIZE) }).then(
      (answer) => (answer.status === 431 && JSON.parse(answer.body).error === 'Request Header Fields Too Large' ? 'refused' : `answered ${answer.status}`),
      (error: Error) => (/ENHANCE_YOUR_CALM/.test(error.message) ? 'refused' : error.message),
    );
    assert.equal(outcome, 'refused');
    assert.equal(upstream.requests.some((r) => r.url === '/echo/big-header'), false);
    assert.equal((await h2({ ':path': '/echo/small-header', 'x-small': 'a'.repeat(100) })).status, 200);
  });

  test('at most 100 streams at once per connection: a client that opens more loses the connection', async () => {
    assert.equal((await live()).remoteSettings.maxConcurrentStreams, 100);
    const raw = await rawH2Session(port);
    try {
      peakHolding = 0;
      const ids = Array.from({ length: 110 }, (_, i) => 1 + 2 * i);
      raw.write(Buffer.concat(ids.map((id) => getHeaders(id, `/hold/${id}`))));
      // nghttp2 takes the 101st stream for a protocol error and node destroys the session.
      await withTimeout(raw.closed, 15_000, 'the connection closed');
      assert.equal(raw.frames.some((f) => f.type === FRAME.HEADERS && f.streamId > (ids[99] as number)), false, 'no stream past the limit answered');
      assert.ok(peakHolding <= 100, `${peakHolding} requests reached the upstream at once`);
    } finally {
      raw.close();
    }
    assert.equal((await h2({ ':path': '/echo/next' })).status, 200);
  });

  test('rapid reset: a client that opens and resets streams past the budget gets GOAWAY ENHANCE_YOUR_CALM', async () => {
    const raw = await rawH2Session(port);
    try {
      const burst: Buffer[] = [];
      for (let i = 0; i < 300; i += 1) burst.push(getHeaders(1 + 2 * i, '/hold/reset'), rstStream(1 + 2 * i));
      raw.write(Buffer.concat(burst));
      const goaway = await raw.waitFor((f) => f.type === FRAME.GOAWAY);
      assert.equal(errorCode(goaway), http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    } finally {
      raw.close();
    }
    await gateway.waitForOutput('"kind":"rapid-reset"');
    // Other clients are served on.
    assert.equal((await h2({ ':path': '/echo/still' })).status, 200);
  });

  test('a SETTINGS flood gets GOAWAY ENHANCE_YOUR_CALM', async () => {
    const flooder = await h2Connect(port);
    const goaway = new Promise<number>((resolve) => flooder.once('goaway', resolve));
    const closed = new Promise<void>((resolve) => flooder.once('close', resolve));
    flooder.on('error', () => undefined);
    // One SETTINGS frame at a time, each acknowledged: node's client allows few unacknowledged ones.
    for (let i = 0; i < 100 && !flooder.destroyed && !flooder.closed; i += 1) {
      await Promise.race([new Promise<void>((resolve) => flooder.settings({ enablePush: false }, () => resolve())), closed]);
    }
    assert.equal(await withTimeout(goaway, 10_000, 'GOAWAY'), http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    flooder.destroy();
  });

  test('WebSocket over TLS (wss) still works: HTTP/1.1 upgrade on the HTTPS listener', async () => {
    const socket = new WebSocket(`wss://127.0.0.1:${port}/ws`, { rejectUnauthorized: false });
    await withTimeout(new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject)), 10_000, 'wss open');
    const echoed = withTimeout(new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data)))), 10_000, 'wss echo');
    socket.send('over tls');
    assert.equal(await echoed, 'over tls');
    socket.close();
    assert.equal((await httpsRequest(port, '/echo/h1')).status, 200);
  });

  test('SIGTERM drains the HTTPS listener: requests in flight finish, HTTP/2 sessions get GOAWAY, HTTP/1.1 ones Connection: close', async () => {
    const client = await h2Connect(port);
    const goaway = new Promise<number>((resolve) => client.once('goaway', resolve));
    holding = 0;
    const overH2 = h2Request(client, { ':path': '/hold/drain-h2' });
    const overH1 = httpsRequest(port, '/hold/drain-h1', { agent: new https.Agent({ keepAlive: true }) });
    for (let i = 0; i < 200 && holding < 2; i += 1) await new Promise((r) => setTimeout(r, 10));
    assert.equal(holding, 2, 'both requests reached the upstream');
    gateway.signal('SIGTERM');
    const [h2Answer, h1Answer] = await Promise.all([overH2, overH1]);
    assert.deepEqual([h2Answer.status, h2Answer.body], [200, 'held']);
    assert.deepEqual([h1Answer.status, h1Answer.body, h1Answer.headers['connection']], [200, 'held', 'close']);
    assert.equal(await withTimeout(goaway, 10_000, 'GOAWAY'), http2.constants.NGHTTP2_NO_ERROR);
    client.destroy();
    assert.equal(await withTimeout(gateway.exited, 30_000, 'exit'), 0);
  });
});

describe('HTTP/2 in one-process mode', () => {
  let cert: Cert;
  let gateway: GatewayProcess;

  before(async () => {
    cert = makeSelfSignedCert(['gw.test']);
    gateway = await startGatewayProcess({
      role: 'all',
      config: `version: "1.0.0"\nproxy:\n  tls:\n    port: 0\n    certificates:\n      - { certFile: "${cert.certPath}", keyFile: "${cert.keyPath}" }\nroutes: []\n`,
    });
  });

  after(async () => {
    await gateway?.stop();
    cert?.remove();
  });

  test('the API and admin UI are served on the HTTPS listener over HTTP/1.1; their HTTP/2 streams are reset with HTTP_1_1_REQUIRED', async () => {
    const port = tlsPortOf(gateway);
    const api = await httpsRequest(port, '/api/routes');
    assert.equal(api.status, 401);
    const session = await h2Connect(port);
    try {
      const stream = session.request({ ':path': '/api/routes' });
      stream.on('error', () => undefined);
      await new Promise((resolve) => stream.once('close', resolve));
      assert.equal(stream.rstCode, http2.constants.NGHTTP2_HTTP_1_1_REQUIRED);
      // The data plane's own endpoints answer over HTTP/2 on the same connection.
      assert.equal((await h2Request(session, { ':path': '/health' })).status, 200);
    } finally {
      session.close();
    }
    assert.equal(gateway.output.some((line) => line.includes('Unhandled')), false);
  });
});
