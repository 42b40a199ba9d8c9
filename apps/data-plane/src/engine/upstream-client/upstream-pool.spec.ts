import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeSelfSignedCert, startUnresponsiveListener, withTimeout } from '@gateway/testing';
import type { ResponseHead } from './response-parser';
import type { UpstreamClientError } from './upstream-client-error';
import type { UpstreamResponseHandler } from './upstream-connection';
import { UpstreamPool, type UpstreamPoolOptions } from './upstream-pool';

/** Collects one exchange's callbacks; `done` settles on the first terminal one. */
class Collector implements UpstreamResponseHandler {
  head: ResponseHead | undefined;
  readonly chunks: Buffer[] = [];
  readonly calls: string[] = [];
  trailers: string[] | undefined;
  error: UpstreamClientError | undefined;
  upgrade: { socket: Socket; rest: Buffer } | undefined;
  readonly done: Promise<void>;
  private settle!: () => void;

  constructor() {
    this.done = new Promise((resolve) => (this.settle = resolve));
  }

  get body(): string {
    return Buffer.concat(this.chunks).toString('latin1');
  }

  onResponse(head: ResponseHead): void {
    this.calls.push('response');
    this.head = head;
  }

  onData(chunk: Buffer): void {
    this.chunks.push(Buffer.from(chunk));
  }

  onEnd(trailers: string[]): void {
    this.calls.push('end');
    this.trailers = trailers;
    this.settle();
  }

  onError(error: UpstreamClientError): void {
    this.calls.push(`error:${error.code}`);
    this.error = error;
    this.settle();
  }
}

class UpgradeCollector extends Collector {
  onUpgrade(head: ResponseHead, socket: Socket, rest: Buffer): void {
    this.calls.push('upgrade');
    this.head = head;
    this.upgrade = { socket, rest };
    // Resolve through onEnd's settle: the exchange is over for the pool.
    this.onEnd([]);
  }
}

interface Upstream {
  readonly port: number;
  /** Connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

/** An HTTP server that answers with its connection number and the request it saw. */
async function startEchoServer(options: { onRequest?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean } = {}): Promise<Upstream> {
  const upstream = { port: 0, connections: 0, close: async () => undefined } as Upstream;
  const server = http.createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
    if (options.onRequest?.(req, res) === true) return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = (req.socket as Socket & { id?: number }).id;
      res.setHeader('x-connection', String(id));
      res.setHeader('x-request-framing', req.headers['transfer-encoding'] ?? `length ${req.headers['content-length'] ?? 'none'}`);
      res.end(`${req.method} ${req.url} host=${req.headers.host} body=${Buffer.concat(chunks).toString('latin1')}`);
    });
  });
  server.on('connection', (socket: Socket & { id?: number }) => {
    upstream.connections += 1;
    socket.id = upstream.connections;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(upstream, {
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** A raw TCP upstream: `answer` gets each connection and the bytes of its first request head. */
async function startRawServer(answer: (socket: Socket, head: string, connection: number) => void): Promise<Upstream> {
  const upstream = { port: 0, connections: 0, close: async () => undefined } as Upstream;
  const sockets = new Set<Socket>();
  const server = net.createServer((socket) => {
    upstream.connections += 1;
    const connection = upstream.connections;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let head = '';
    socket.on('data', (data) => {
      head += data.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      const request = head.slice(0, end + 4);
      head = head.slice(end + 4);
      answer(socket, request, connection);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(upstream, {
    port: (server.address() as AddressInfo).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

function poolFor(upstream: Upstream, options: Partial<UpstreamPoolOptions> = {}): UpstreamPool {
  return new UpstreamPool({ host: '127.0.0.1', port: upstream.port, ...options });
}

async function get(pool: UpstreamPool, path = '/', extra: Partial<Parameters<UpstreamPool['request']>[0]> = {}): Promise<Collector> {
  const collector = new Collector();
  pool.request({ method: 'GET', path, headers: [], ...extra }, collector);
  await collector.done;
  return collector;
}

/** Waits until `condition` holds (a socket's 'close' comes a loop turn or more after destroy()); fails naming `what` after 10 s. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const header = (head: ResponseHead | undefined, name: string): string | undefined => {
  const raw = head?.rawHeaders ?? [];
  for (let i = 0; i < raw.length; i += 2) if ((raw[i] as string).toLowerCase() === name) return raw[i + 1];
  return undefined;
};

describe('UpstreamPool: reuse and bounds', () => {
  let upstream: Upstream;
  before(async () => (upstream = await startEchoServer()));
  after(() => upstream.close());

  test('sequential requests reuse one keep-alive connection; the Host header defaults to the origin', async () => {
    const before = upstream.connections;
    const pool = poolFor(upstream);
    for (let i = 0; i < 3; i += 1) {
      const result = await get(pool, `/r${i}`);
      assert.deepEqual(result.calls, ['response', 'end']);
      assert.equal(result.head?.statusCode, 200);
      assert.equal(result.body, `GET /r${i} host=127.0.0.1:${upstream.port} body=`);
    }
    assert.equal(upstream.connections - before, 1);
    assert.deepEqual(pool.stats, { open: 1, idle: 1, queued: 0 });
    pool.close();
  });

  test('the connection released last is reused first (LIFO)', async () => {
    const pool = poolFor(upstream);
    const [a, b] = await Promise.all([get(pool, '/a'), get(pool, '/b')]);
    const ids = [header(a.head, 'x-connection'), header(b.head, 'x-connection')];
    assert.notEqual(ids[0], ids[1]);
    // Both are idle now; finish one more exchange on each in a known order, then look at who serves next.
    const first = await get(pool, '/first');
    const lastReleased = header(first.head, 'x-connection');
    const next = await get(pool, '/next');
    assert.equal(header(next.head, 'x-connection'), lastReleased);
    pool.close();
  });

  test('maxConnections bounds the open connections; further requests wait and are served in turn', async () => {
    const before = upstream.connections;
    const pool = poolFor(upstream, { maxConnections: 1 });
    const collectors = [new Collector(), new Collector(), new Collector()];
    collectors.forEach((c, i) => pool.request({ method: 'GET', path: `/q${i}`, headers: [] }, c));
    assert.deepEqual(pool.stats, { open: 1, idle: 0, queued: 2 });
    await Promise.all(collectors.map((c) => c.done));
    assert.deepEqual(collectors.map((c) => c.body), [0, 1, 2].map((i) => `GET /q${i} host=127.0.0.1:${upstream.port} body=`));
    assert.equal(upstream.connections - before, 1);
    pool.close();
  });

  test('request bodies: small (one write with the head), large, streamed with a length and streamed chunked', async () => {
    const pool = poolFor(upstream);
    const small = await get(pool, '/s', { method: 'POST', body: Buffer.from('hello') });
    assert.equal(small.body, `POST /s host=127.0.0.1:${upstream.port} body=hello`);
    assert.equal(header(small.head, 'x-request-framing'), 'length 5');
    const bigBody = Buffer.alloc(200 * 1024, 'b');
    const big = await get(pool, '/big', { method: 'PUT', body: bigBody });
    assert.equal(big.body.length, `PUT /big host=127.0.0.1:${upstream.port} body=`.length + bigBody.length);

    const streamed = new Collector();
    const exchange = pool.request({ method: 'POST', path: '/len', headers: ['Content-Length', '999'], streamedBody: 6 }, streamed);
    exchange.write(Buffer.from('abc'));
    exchange.end(Buffer.from('def'));
    await streamed.done;
    assert.equal(streamed.body, `POST /len host=127.0.0.1:${upstream.port} body=abcdef`);
    assert.equal(header(streamed.head, 'x-request-framing'), 'length 6', 'a caller-given Content-Length is replaced by the declared one');

    const chunked = new Collector();
    const stream = pool.request({ method: 'POST', path: '/chunked', headers: [], streamedBody: 'chunked' }, chunked);
    stream.write(Buffer.from('one,'));
    setImmediate(() => stream.end(Buffer.from('two')));
    await chunked.done;
    assert.equal(chunked.body, `POST /chunked host=127.0.0.1:${upstream.port} body=one,two`);
    assert.equal(header(chunked.head, 'x-request-framing'), 'chunked');

    const tooLong = new Collector();
    const bad = pool.request({ method: 'POST', path: '/x', headers: [], streamedBody: 2 }, tooLong);
    bad.write(Buffer.from('abc'));
    await tooLong.done;
    assert.equal(tooLong.error?.code, 'UPSTREAM_INVALID_REQUEST');
    pool.close();
  });

  test('a response paused by its caller and complete before the resume leaves a connection that reads again', async () => {
    const before = upstream.connections;
    const pool = poolFor(upstream);
    const paused = new Collector();
    const exchange = pool.request({ method: 'GET', path: '/paused', headers: [] }, {
      onResponse: (head) => paused.onResponse(head),
      onData: (chunk) => {
        paused.onData(chunk);
        exchange.pause();
        // The caller resumes later, as a client response's 'drain' would: after the end here.
        setTimeout(() => exchange.resume(), 20);
      },
      onEnd: (trailers) => paused.onEnd(trailers),
      onError: (error) => paused.onError(error),
    });
    await paused.done;
    assert.equal(paused.body, `GET /paused host=127.0.0.1:${upstream.port} body=`);
    const next = await get(pool, '/next');
    assert.equal(next.body, `GET /next host=127.0.0.1:${upstream.port} body=`);
    assert.equal(upstream.connections - before, 1);
    pool.close();
  });

  test('a header value with CR/LF is refused before a byte is written; the pool stays usable', async () => {
    const before = upstream.connections;
    const pool = poolFor(upstream);
    const refused = await get(pool, '/', { headers: ['X-Evil', 'a\r\nX-Injected: 1'] });
    assert.equal(refused.error?.code, 'UPSTREAM_INVALID_REQUEST');
    const badPath = await get(pool, '/a b');
    assert.equal(badPath.error?.code, 'UPSTREAM_INVALID_REQUEST');
    const ok = await get(pool, '/fine');
    assert.equal(ok.head?.statusCode, 200);
    assert.equal(upstream.connections - before, 1);
    pool.close();
  });

  test('a trusted value goes out byte for byte; any other value, even beside it, is still checked', async () => {
    // The raw head the upstream received, echoed as the body: the wire bytes themselves.
    const raw = await startRawServer((socket, head) => socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(head, 'latin1')}\r\n\r\n${head}`));
    try {
      const pool = poolFor(raw);
      // Built as the tracing policy builds it: a cons string of checked hex pieces.
      const traceparent = `00-${'4bf92f3577b34da6a3ce929d0e0e4736'}-${'00f067aa0ba902b7'}${'-01'}`;
      const trustedValue = traceparent;
      const sent = await get(pool, '/t', { headers: ['traceparent', traceparent, 'x-other', 'v'], trustedValue });
      assert.equal(sent.body, `GET /t HTTP/1.1\r\ntraceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\nx-other: v\r\nhost: 127.0.0.1:${raw.port}\r\n\r\n`);
      // A value put in the trusted one's place (by a policy, from a client) is scanned as always.
      for (const value of [`${traceparent}\r\nX-Injected: 1`, 'a\nb', `00-${'0'.repeat(32)}\r-${'0'.repeat(16)}-01`]) {
        const refused = await get(pool, '/', { headers: ['traceparent', value], trustedValue });
        assert.equal(refused.error?.code, 'UPSTREAM_INVALID_REQUEST', JSON.stringify(value));
        assert.match(refused.error?.message ?? '', /invalid character in header traceparent/);
      }
      const beside = await get(pool, '/', { headers: ['traceparent', traceparent, 'x-evil', 'a\r\nX-Injected: 1'], trustedValue });
      assert.equal(beside.error?.code, 'UPSTREAM_INVALID_REQUEST');
      pool.close();
    } finally {
      await raw.close();
    }
  });

  test('field names in any case: Host kept, framing fields replaced; a bad name is refused every time, a checked one reused', async () => {
    const pool = poolFor(upstream);
    const headers = ['HOST', 'named.example', 'CONTENT-length', '99', 'Transfer-ENCODING', 'gzip', 'X-Seen', 'one'];
    for (let round = 0; round < 2; round += 1) {
      const sent = await get(pool, '/case', { method: 'POST', headers, body: Buffer.from('hi') });
      assert.equal(sent.body, 'POST /case host=named.example body=hi', `round ${round}`);
      assert.equal(header(sent.head, 'x-request-framing'), 'length 2', `round ${round}: the caller's framing fields are dropped`);
      const refused = await get(pool, '/', { headers: ['X-Seen', 'two', 'Bad Name', 'x'] });
      assert.equal(refused.error?.code, 'UPSTREAM_INVALID_REQUEST', `round ${round}`);
      assert.match(refused.error?.message ?? '', /invalid header name/);
    }
    pool.close();
  });
});

describe('UpstreamPool: keep-alive decisions and poisoned connections', () => {
  test('Connection: close and HTTP/1.0 responses are not reused; HTTP/1.0 keep-alive is', async () => {
    const upstream = await startRawServer((socket, head) => {
      const path = head.split(' ')[1];
      if (path === '/close') socket.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok');
      else if (path === '/http10') socket.write('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok');
      else socket.write('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok');
    });
    const pool = poolFor(upstream);
    for (const path of ['/close', '/http10', '/keep']) {
      const result = await get(pool, path);
      assert.equal(result.body, 'ok', path);
    }
    assert.equal(pool.stats.idle, 1);
    await get(pool, '/keep');
    assert.equal(upstream.connections, 3);
    pool.close();
    await upstream.close();
  });

  test('bytes arriving on an idle connection close it: the next request gets a fresh connection, not those bytes', async () => {
    let poisoned: Socket | undefined;
    const upstream = await startRawServer((socket, head, connection) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nc${connection}`);
      if (head.includes('/poison')) poisoned = socket;
    });
    const pool = poolFor(upstream);
    try {
      assert.equal((await get(pool, '/poison')).body, 'c1');
      // Sent once the answer was taken (the connection is idle), never in the same read as it.
      const closed = new Promise((resolve) => poisoned?.once('close', resolve));
      poisoned?.write('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged');
      await withTimeout(closed, 10_000, 'the pool kept the idle connection that sent bytes');
      assert.equal(pool.stats.idle, 0);
      assert.equal((await get(pool, '/next')).body, 'c2');
    } finally {
      pool.close();
      await upstream.close();
    }
  });

  test('bytes after the response in the same read fail the exchange (node refuses them too)', async () => {
    const upstream = await startRawServer((socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
    const pool = poolFor(upstream);
    const result = await get(pool);
    assert.equal(result.error?.code, 'UPSTREAM_PROTOCOL');
    assert.equal(pool.stats.idle, 0);
    pool.close();
    await upstream.close();
  });

  test('HEAD, 204 and 304 responses end with their head; 1xx interim responses are skipped; trailers are delivered', async () => {
    const upstream = await startRawServer((socket, head) => {
      const path = head.split(' ')[1];
      if (path === '/head') socket.write('HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n');
      else if (path === '/204') socket.write('HTTP/1.1 204 No Content\r\n\r\n');
      else if (path === '/304') socket.write('HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n');
      else socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Sum: 9\r\n\r\n');
    });
    const pool = poolFor(upstream);
    const head = await get(pool, '/head', { method: 'HEAD' });
    assert.deepEqual([head.calls, head.body], [['response', 'end'], '']);
    assert.equal((await get(pool, '/204')).head?.statusCode, 204);
    assert.equal((await get(pool, '/304')).head?.statusCode, 304);
    const chunked = await get(pool, '/chunked');
    assert.deepEqual([chunked.head?.statusCode, chunked.body, chunked.trailers], [200, 'abc', ['X-Sum', '9']]);
    // A HEAD answer closes its connection (a late body would read as the next answer); the others reuse one.
    assert.equal(upstream.connections, 2, 'the HEAD connection was not reused; the other three shared one');
    pool.close();
    await upstream.close();
  });

  test('a body read until close ends at the close and the connection is not reused', async () => {
    const upstream = await startRawServer((socket) => socket.end('HTTP/1.1 200 OK\r\n\r\nall of it'));
    const pool = poolFor(upstream);
    const result = await get(pool);
    assert.equal(result.body, 'all of it');
    assert.equal(result.head?.keepAlive, false);
    await eventually(() => pool.stats.open === 0, 'the connection read until close is closed');
    assert.deepEqual(pool.stats, { open: 0, idle: 0, queued: 0 });
    pool.close();
    await upstream.close();
  });
});

describe('UpstreamPool: failures, timeouts and abort', () => {
  test('the upstream closing mid-body is an error after the head, never a complete response', async () => {
    const upstream = await startRawServer((socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'));
    const pool = poolFor(upstream);
    const result = await get(pool);
    assert.deepEqual(result.calls, ['response', 'error:UPSTREAM_CLOSED_EARLY']);
    assert.equal(result.body, 'abc');
    pool.close();
    await upstream.close();
  });

  test('a connection reset mid-body is an error after the head, and nothing escapes to the process', async () => {
    const upstream = await startRawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npart');
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
    let uncaught: unknown;
    const onUncaught = (error: unknown): void => {
      uncaught = error;
    };
    process.on('uncaughtException', onUncaught);
    try {
      const pool = poolFor(upstream);
      const result = await get(pool);
      assert.equal(result.calls[0], 'response');
      assert.ok(result.error?.code === 'UPSTREAM_SOCKET' || result.error?.code === 'UPSTREAM_CLOSED_EARLY', result.error?.code);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(uncaught, undefined);
      pool.close();
    } finally {
      process.off('uncaughtException', onUncaught);
      await upstream.close();
    }
  });

  test('the upstream closing before any response is an error; a refused connection is a socket error', async () => {
    const upstream = await startRawServer((socket) => socket.destroy());
    const pool = poolFor(upstream);
    const closed = await get(pool);
    assert.ok(closed.error?.code === 'UPSTREAM_CLOSED_EARLY' || closed.error?.code === 'UPSTREAM_SOCKET', closed.error?.code);
    pool.close();
    const port = upstream.port;
    await upstream.close();
    const refusedPool = new UpstreamPool({ host: '127.0.0.1', port });
    const refused = await get(refusedPool);
    assert.equal(refused.error?.code, 'UPSTREAM_SOCKET');
    assert.match(String((refused.error?.cause as Error | undefined)?.message), /ECONNREFUSED/);
    refusedPool.close();
  });

  test('a failure before any byte on a reused connection is marked reusedConnection (safe to retry a replayable request)', async () => {
    let served = 0;
    const upstream = await startRawServer((socket) => {
      served += 1;
      if (served === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
      else socket.destroy();
    });
    const pool = poolFor(upstream);
    assert.equal((await get(pool)).head?.statusCode, 200);
    const second = await get(pool);
    assert.equal(second.error?.reusedConnection, true);
    pool.close();
    await upstream.close();
  });

  test('connect, first-byte and idle timeouts each end the exchange with their own code', async () => {
    const listener = await startUnresponsiveListener();
    try {
      const pool = new UpstreamPool({ host: '127.0.0.1', port: listener.port, timeouts: { connectMs: 200 } });
      assert.equal((await get(pool)).error?.code, 'UPSTREAM_CONNECT_TIMEOUT');
      pool.close();
    } finally {
      listener.close();
    }
    const upstream = await startRawServer((socket, head) => {
      if (head.includes('/stall-body')) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc');
    });
    const pool = poolFor(upstream, { timeouts: { firstByteMs: 200, idleMs: 200 } });
    // The head comes at once, but a stall of the process over 200 ms ran the first-byte timer before the
    // read: the idle timeout is checked with a first-byte bound no stall reaches.
    const idlePool = poolFor(upstream, { timeouts: { firstByteMs: 60_000, idleMs: 200 } });
    try {
      assert.equal((await get(pool, '/silent')).error?.code, 'UPSTREAM_FIRST_BYTE_TIMEOUT');
      const stalled = await get(idlePool, '/stall-body');
      assert.deepEqual(stalled.calls, ['response', 'error:UPSTREAM_IDLE_TIMEOUT']);
      await eventually(() => pool.stats.open === 0 && idlePool.stats.open === 0, 'a timed-out connection is closed, not pooled');
    } finally {
      pool.close();
      idlePool.close();
      await upstream.close();
    }
  });

  test('without first-byte and idle timeouts a reused connection waits past its keep-alive time, and still closes once idle', async () => {
    const upstream = await startRawServer((socket, head) => {
      // The second request is answered after three keep-alive times of silence, in two parts.
      const late = head.includes('/late');
      setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nab'), late ? 450 : 0);
      setTimeout(() => socket.write('cd'), late ? 900 : 0);
    });
    const pool = poolFor(upstream, { keepAliveMs: 150, timeouts: { connectMs: 1000, firstByteMs: 0, idleMs: 0 } });
    assert.deepEqual((await get(pool, '/first')).calls, ['response', 'end']);
    const late = await get(pool, '/late');
    assert.deepEqual(late.calls, ['response', 'end'], 'the keep-alive timer must not cut an exchange in flight');
    assert.equal(late.body, 'abcd');
    assert.equal(upstream.connections, 1, 'the second request reused the connection');
    assert.equal(pool.stats.open, 1);
    await eventually(() => pool.stats.open === 0, 'the idle connection closes after its keep-alive time');
    pool.close();
    await upstream.close();
  });

  test('a queued request gives up after the connect timeout when no connection frees', async () => {
    const upstream = await startRawServer(() => undefined);
    const pool = poolFor(upstream, { maxConnections: 1, timeouts: { connectMs: 150, firstByteMs: 5000 } });
    const first = new Collector();
    const exchange = pool.request({ method: 'GET', path: '/', headers: [] }, first);
    const queued = await get(pool);
    assert.equal(queued.error?.code, 'UPSTREAM_CONNECT_TIMEOUT');
    exchange.abort();
    pool.close();
    await upstream.close();
  });

  test('abort closes the connection, frees the slot and calls nothing back', async () => {
    let serverSawClose!: () => void;
    let serverSawRequest!: () => void;
    const closedOnServer = new Promise<void>((resolve) => (serverSawClose = resolve));
    const requestOnServer = new Promise<void>((resolve) => (serverSawRequest = resolve));
    const upstream = await startRawServer((socket) => {
      serverSawRequest();
      socket.on('close', () => serverSawClose());
    });
    const pool = poolFor(upstream, { maxConnections: 1 });
    const aborted = new Collector();
    const exchange = pool.request({ method: 'GET', path: '/', headers: [] }, aborted);
    const queued = new Collector();
    const queuedExchange = pool.request({ method: 'GET', path: '/', headers: [] }, queued);
    queuedExchange.abort();
    await withTimeout(requestOnServer, 10_000, 'the first request never reached the upstream');
    exchange.abort();
    exchange.abort();
    await withTimeout(closedOnServer, 10_000, 'abort did not close the connection');
    await eventually(() => pool.stats.open === 0, 'the aborted connection is closed');
    assert.deepEqual([aborted.calls, queued.calls], [[], []]);
    assert.deepEqual(pool.stats, { open: 0, idle: 0, queued: 0 });
    pool.close();
    await upstream.close();
  });

  test('a 101 hands the socket and the bytes after the head to onUpgrade; without onUpgrade it is an error', async () => {
    const upstream = await startRawServer((socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nfirst-frame');
      socket.on('data', (data) => socket.write(`echo:${data.toString('latin1')}`));
    });
    const pool = poolFor(upstream);
    const upgrade = new UpgradeCollector();
    pool.request({ method: 'GET', path: '/ws', headers: ['Upgrade', 'websocket', 'Connection', 'Upgrade'] }, upgrade);
    await upgrade.done;
    assert.deepEqual([upgrade.calls, upgrade.head?.statusCode, upgrade.upgrade?.rest.toString()], [['upgrade', 'end'], 101, 'first-frame']);
    const socket = upgrade.upgrade?.socket as Socket;
    const echoed = new Promise<string>((resolve) => socket.once('data', (data) => resolve(data.toString())));
    socket.write('ping');
    assert.equal(await echoed, 'echo:ping');
    socket.destroy();
    assert.equal(pool.stats.open, 0);
    const plain = await get(pool, '/ws');
    assert.equal(plain.error?.code, 'UPSTREAM_PROTOCOL');
    pool.close();
    await upstream.close();
  });

  test('plain connections share one read buffer: a head split over reads and the bytes after a 101 survive other connections\' reads', async () => {
    // The second half of the head is sent only once the other upstream's answer has been read,
    // which overwrites the shared buffer the first half arrived in (read-buffer.ts).
    let sendRest: () => void = () => undefined;
    const split = await startRawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nx-first: kept-across-reads\r\nContent-Le');
      sendRest = () => socket.write('ngth: 5\r\n\r\nsplit');
    });
    const upgrading = await startRawServer((socket) => socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\nbytes-after-head'));
    const other = await startRawServer((socket) => socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n${'z'.repeat(40)}`));
    const splitPool = poolFor(split);
    const upgradePool = poolFor(upgrading);
    const otherPool = poolFor(other);
    const first = new Collector();
    splitPool.request({ method: 'GET', path: '/split', headers: [] }, first);
    const upgrade = new UpgradeCollector();
    upgradePool.request({ method: 'GET', path: '/up', headers: ['Upgrade', 'x', 'Connection', 'Upgrade'] }, upgrade);
    await upgrade.done;
    // Let the first half of the split head arrive before the other connection reads.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await get(otherPool, '/other')).body, 'z'.repeat(40));
    sendRest();
    await first.done;
    assert.deepEqual([first.head?.statusCode, header(first.head, 'x-first'), first.body], [200, 'kept-across-reads', 'split']);
    assert.equal(upgrade.upgrade?.rest.toString('latin1'), 'bytes-after-head');
    upgrade.upgrade?.socket.destroy();
    for (const pool of [splitPool, upgradePool, otherPool]) pool.close();
    await Promise.all([split.close(), upgrading.close(), other.close()]);
  });

  test('a closed pool refuses new requests and closes idle connections', async () => {
    const upstream = await startEchoServer();
    const pool = poolFor(upstream);
    await get(pool);
    pool.close();
    assert.equal(pool.stats.idle, 0);
    assert.equal((await get(pool)).error?.code, 'UPSTREAM_POOL_CLOSED');
    await upstream.close();
  });
});

describe('UpstreamPool: TLS', () => {
  test('HTTPS upstreams: SNI carries the host name, the CA option is honoured, an untrusted certificate fails', async () => {
    const cert = makeSelfSignedCert();
    let sni: string | undefined;
    const server = https.createServer({ key: cert.key, cert: cert.cert }, (req, res) => res.end(`tls ${req.url}`));
    server.on('secureConnection', (socket: Socket & { servername?: string | false }) => (sni = socket.servername || undefined));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const trusted = new UpstreamPool({ host: '127.0.0.1', port, tls: { servername: 'localhost', ca: cert.cert } });
      const ok = await get(trusted, '/secure');
      assert.deepEqual([ok.head?.statusCode, ok.body, sni], [200, 'tls /secure', 'localhost']);
      trusted.close();
      const untrusted = new UpstreamPool({ host: '127.0.0.1', port, tls: { servername: 'localhost' } });
      const refused = await get(untrusted);
      assert.equal(refused.error?.code, 'UPSTREAM_SOCKET');
      untrusted.close();
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      cert.remove();
    }
  });

  test('a pool with a refusal (its CA file did not load) never connects: every request fails with the reason', async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const pool = new UpstreamPool({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, tls: {}, refusal: "upstream 'x': tls.caFile /ca.pem does not exist" });
    try {
      for (let i = 0; i < 2; i += 1) {
        const failed = await get(pool);
        assert.equal(failed.error?.code, 'UPSTREAM_REFUSED');
        assert.equal((failed.error?.cause as Error).message, "upstream 'x': tls.caFile /ca.pem does not exist");
      }
      assert.equal(connections, 0);
      assert.equal(pool.stats.open, 0);
    } finally {
      pool.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('UpstreamPool: an address to dial', () => {
  test('the given address is dialed; Host stays the origin host, and a fresh request takes a new connection', async () => {
    const upstream = await startEchoServer();
    // The host name does not resolve here: only the address can have reached the server.
    const pool = new UpstreamPool({ host: 'api.invalid', port: upstream.port, address: '127.0.0.1' });
    try {
      const first = await get(pool, '/a');
      assert.equal(first.body, `GET /a host=api.invalid:${upstream.port} body=`);
      const collector = new Collector();
      pool.request({ method: 'GET', path: '/b', headers: [] }, collector, undefined, true);
      await collector.done;
      assert.equal(header(collector.head, 'x-connection'), '2', 'fresh: not the idle pooled connection');
    } finally {
      pool.close();
      await upstream.close();
    }
  });
});

describe('UpstreamPool: closeIdle', () => {
  test('idle connections close at once and the pool still serves requests (on a new connection)', async () => {
    const upstream = await startEchoServer();
    const pool = poolFor(upstream);
    try {
      await get(pool, '/a');
      assert.equal(pool.stats.idle, 1);
      pool.closeIdle();
      assert.equal(pool.stats.idle, 0);
      const after = await get(pool, '/b');
      assert.deepEqual([after.head?.statusCode, header(after.head, 'x-connection')], [200, '2']);
    } finally {
      pool.close();
      await upstream.close();
    }
  });
});
