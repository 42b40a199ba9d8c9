import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

const MIB = 1024 * 1024;
/** Far more than every socket buffer on the way (loopback buffers are a few MiB each). */
const LARGE = 64 * MIB;

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Resolves with `read()` once it has stayed the same for `quietMs`: the bytes written so far once every
 * buffer on the way is full. Waiting a fixed time for that failed on a loaded machine: the buffers
 * were still filling after 1.5 s (7 MiB, then 8.5 MiB half a second later).
 */
async function stalled(read: () => number, what: string, quietMs = 500, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let value = read();
  let since = Date.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (read() !== value) {
      value = read();
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return value;
    if (Date.now() > deadline) throw new Error(`${what} never stopped moving in ${timeoutMs} ms (at ${value} bytes)`);
  }
}

/** Writes `body` in 256 KiB pieces, waiting for 'drain' whenever the stream is full; reports progress, then ends it. */
function writeWithBackpressure(stream: NodeJS.WritableStream, body: Buffer, progress: (written: number) => void, ended: () => void): void {
  let at = 0;
  const pump = (): void => {
    while (at < body.length) {
      const chunk = body.subarray(at, at + 256 * 1024);
      at += chunk.length;
      progress(at);
      if (!stream.write(chunk)) {
        stream.once('drain', pump);
        return;
      }
    }
    ended();
    stream.end();
  };
  pump();
}

/** `length` bytes cycling through every byte value 0-255. */
function bytePattern(length: number): Buffer {
  const body = Buffer.alloc(length);
  for (let i = 0; i < length; i += 1) body[i] = i % 256;
  return body;
}

/** A raw upstream: `answer` decides what each request (its head, and how many came on that connection before) gets. */
async function startRawUpstream(answer: (head: string, nth: number, socket: net.Socket) => void): Promise<{ port: number; connections: number; close(): void }> {
  const state = { connections: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    let nth = 0;
    socket.on('data', (data) => {
      buffered += data.toString('latin1');
      let end = buffered.indexOf('\r\n\r\n');
      while (end !== -1) {
        const head = buffered.slice(0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        answer(head, nth, socket);
        nth += 1;
        end = buffered.indexOf('\r\n\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return state.connections;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe('upstream client in the data plane: backpressure, stale connections, response limits', () => {
  let upstream: LoopbackUpstream;
  let raw: Awaited<ReturnType<typeof startRawUpstream>>;
  let gateway: GatewayProcess;
  let uploads: http.Server | undefined;
  let largeBody: Buffer;
  /** Bytes the /large handler has handed to its socket so far (writes the kernel took or node buffered). */
  let largeWritten = 0;
  let largeDone = false;
  /** The upload handler's request, paused until the test resumes it. */
  const held: { upload?: http.IncomingMessage } = {};

  before(async () => {
    largeBody = Buffer.alloc(LARGE);
    for (let i = 0; i < largeBody.length; i += 4096) largeBody.writeUInt32BE(i, i);
    upstream = await startUpstream({
      handler: (req, res) => {
        if (req.url === '/large') {
          largeWritten = 0;
          largeDone = false;
          res.writeHead(200, { 'content-length': String(LARGE) });
          writeWithBackpressure(res, largeBody, (written) => (largeWritten = written), () => {
            largeDone = true;
          });
          return;
        }
        res.writeHead(200);
        res.end('ok');
      },
    });
    // The loopback upstream buffers request bodies; uploads go to a server of their own that can hold one unread.
    const uploadServer = http.createServer((req, res) => {
      held.upload = req;
      req.pause();
      const hash = createHash('sha256');
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        size += chunk.length;
      });
      req.on('end', () => res.end(JSON.stringify({ size, sha256: hash.digest('hex') })));
    });
    uploads = uploadServer;
    await new Promise<void>((resolve) => uploadServer.listen(0, '127.0.0.1', resolve));
    const uploadPort = (uploadServer.address() as AddressInfo).port;
    raw = await startRawUpstream((head, nth, socket) => {
      const path = head.split(' ')[1] ?? '';
      if (path.startsWith('/stale')) {
        // The first request on a connection is answered and kept alive; a second one on it finds the connection closed.
        if (nth === 0) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfresh');
        else socket.destroy();
      } else if (path === '/fields/1000') {
        socket.write(`HTTP/1.1 200 OK\r\n${Array.from({ length: 999 }, (_, i) => `X-F${i}: ${i}\r\n`).join('')}Content-Length: 2\r\n\r\nok`);
      } else if (path === '/fields/1001') {
        socket.write(`HTTP/1.1 200 OK\r\n${Array.from({ length: 1000 }, (_, i) => `X-F${i}: ${i}\r\n`).join('')}Content-Length: 2\r\n\r\nok`);
      } else if (path.startsWith('/bytes/')) {
        // Every byte value (CR, LF, 0x80-0xff included) in a Content-Length body: `/bytes/<length>[/split]`,
        // split sending the body's second half in a later write, so the gateway reads it as a slice of its own.
        const [, , length, split] = path.split('/');
        const body = bytePattern(Number(length));
        const head = `HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n\r\n`;
        if (split !== 'split') socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
        else {
          socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body.subarray(0, body.length >> 1)]));
          setTimeout(() => socket.write(body.subarray(body.length >> 1)), 30);
        }
      } else if (path === '/big-head') {
        socket.write(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\nContent-Length: 2\r\n\r\nok`);
      } else socket.write('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    });
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
proxy: { maxBodySize: 1gb }
routes:
  - { path: /download/*, upstream: "${upstream.origin}", timeout: { request: 60000 } }
  - { path: /upload/*, upstream: "http://127.0.0.1:${uploadPort}", timeout: { request: 60000 } }
  - { path: /raw/*, upstream: "http://127.0.0.1:${raw.port}", timeout: { keepAlive: 60000 } }
  - path: /hooked/*
    upstream: "http://127.0.0.1:${raw.port}"
    stripPath: true
    headers: { response: { set: { X-Served-By: "gateway \${route}" } } }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
    raw?.close();
    uploads?.close();
  });

  test('a slow client holds back the upstream: the response is not buffered in the gateway, and arrives whole', { timeout: 120_000 }, async () => {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get(`${gateway.url}/download/large`, { agent: false }, resolve).on('error', reject);
    });
    res.pause();
    // Nothing reads the client's side: once every buffer on the way is full the upstream must stop.
    const stalledAt = await stalled(() => largeWritten, 'the upstream');
    assert.ok(!largeDone && stalledAt < LARGE / 2, `the upstream wrote ${stalledAt} of ${LARGE} bytes with the client paused`);
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.resume();
    await new Promise((resolve) => res.on('end', resolve));
    assert.equal(sha256(Buffer.concat(chunks)), sha256(largeBody));
  });

  test('an upstream that does not read holds back the client: the upload is not buffered in the gateway, and arrives whole', { timeout: 120_000 }, async () => {
    let accepted = 0;
    const answer = new Promise<{ size: number; sha256: string }>((resolve, reject) => {
      const req = http.request(`${gateway.url}/upload/x`, { method: 'POST', agent: false, headers: { 'transfer-encoding': 'chunked' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { size: number; sha256: string }));
      });
      req.on('error', reject);
      writeWithBackpressure(req, largeBody, (written) => (accepted = written), () => undefined);
    });
    await until(() => held.upload !== undefined, 'the upload to reach the upstream');
    const stalledAt = await stalled(() => accepted, 'the client');
    assert.ok(stalledAt < LARGE / 2, `the client wrote ${stalledAt} of ${LARGE} bytes with the upstream paused`);
    held.upload?.resume();
    assert.deepEqual(await answer, { size: LARGE, sha256: sha256(largeBody) });
  });

  test('a pooled connection the upstream closed as it was reused: a GET is sent again on a new connection, a POST with a body is not', async () => {
    const before = raw.connections;
    assert.equal((await request(`${gateway.url}/raw/stale-a`)).text, 'fresh');
    // The next request reuses that connection, which the upstream then closes: answered from a new one.
    const again = await request(`${gateway.url}/raw/stale-b`);
    assert.deepEqual([again.status, again.text], [200, 'fresh']);
    assert.equal(raw.connections, before + 2);
    // A streamed body cannot be sent twice: the failure is the client's 502.
    const post = await request(`${gateway.url}/raw/stale-c`, { method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' } });
    assert.equal(post.status, 502);
  });

  test('1,000 response header fields pass; more are refused with 502 rather than dropped', async () => {
    const ok = await request(`${gateway.url}/raw/fields/1000`);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['x-f998'], '998');
    const over = await request(`${gateway.url}/raw/fields/1001`);
    assert.equal(over.status, 502);
    assert.equal(over.json<{ message: string }>().message, 'Upstream error');
  });

  test('bodies of every byte value arrive unchanged, whole or in slices, around the one-write size (4 KiB), with and without response hooks', async () => {
    for (const prefix of ['/raw', '/hooked']) {
      for (const length of [1, 256, 4096, 4097, 20_000]) {
        for (const split of ['', '/split']) {
          const res = await request(`${gateway.url}${prefix}/bytes/${length}${split}`);
          const what = `${prefix}/bytes/${length}${split}`;
          assert.equal(res.status, 200, what);
          assert.equal(res.headers['content-length'], String(length), what);
          assert.equal(res.headers['content-type'], 'application/octet-stream', what);
          assert.ok(res.body.equals(bytePattern(length)), what);
          if (prefix === '/hooked') assert.match(String(res.headers['x-served-by']), /^gateway /, what);
        }
      }
    }
  });

  test('a response head over 16 KiB is refused with 502', async () => {
    const res = await request(`${gateway.url}/raw/big-head`);
    assert.equal(res.status, 502);
    assert.equal(gateway.child.exitCode, null);
  });
});
