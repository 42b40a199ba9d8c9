import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { makeSelfSignedCert, request, startGatewayProcess, withTimeout, type GatewayProcess } from '@gateway/testing';
import { h2Connect, tlsPortOf } from './tls-clients';
import { openH2WebSocket, type H2WebSocket } from './h2-websocket-client';
import { startEchoUpstream, type EchoUpstream } from './websocket-echo';

/*
 * WebSocket over HTTP/2 (RFC 8441, docs/data-plane.md "WebSocket"): node's http2 client sends an
 * extended CONNECT over TLS with ALPN h2 to a real `gateway start`, which forwards it to a `ws` echo
 * upstream on loopback as an HTTP/1.1 Upgrade. The gateway offers no h2c, so only TLS is tested.
 */

/** An upstream whose handshakes go wrong: a 200 instead of a 101, a refusal, a 101 with a wrong accept. */
async function startWrongUpstream(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => res.end('plain'));
  const sockets = new Set<Socket>();
  server.on('upgrade', (req: http.IncomingMessage, socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (req.url === '/wrong/ok') socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
    else if (req.url === '/wrong/refuse') socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 6\r\nConnection: close\r\n\r\nno way');
    else socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: d3Jvbmc=\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const routes = (echo: string, wrong: string, extra = ''): string => `version: "1.0.0"
proxy:
  requestTimeout: 1500
  headersTimeout: 1000
  tls:
    port: 0
    certificates:
      - { certFile: "CERT", keyFile: "KEY" }
routes:
  - { id: echo, path: /echo, upstream: "${echo}", stripPath: false, websocket: true, timeout: { request: 1000 } }
  - { id: limited, path: /limited, upstream: "${echo}", stripPath: false, websocket: { enabled: true, maxConnections: 1 } }
  - { id: idle, path: /idle, upstream: "${echo}", stripPath: false, websocket: { enabled: true, idleTimeout: 1000 } }
  - { id: rated, path: /rated, upstream: "${echo}", stripPath: false, websocket: true, rateLimit: { max: 1, windowMs: 60000 } }
  - { id: denied, path: /denied, upstream: "${echo}", stripPath: false, websocket: true, ipRestriction: { deny: ["127.0.0.1"] } }
  - { id: plain, path: /plain, upstream: "${echo}", stripPath: false }
  - { id: wrong, path: /wrong/*, upstream: "${wrong}", stripPath: false, websocket: true }
${extra}`;

async function openGauge(gateway: GatewayProcess, routeId: string): Promise<number> {
  const match = new RegExp(`^gateway_websocket_connections\\{route="${routeId}"\\} (\\d+)$`, 'm').exec((await request(`${gateway.url}/metrics`)).text);
  return match ? Number(match[1]) : 0;
}

async function eventually(check: () => Promise<boolean> | boolean, message: string): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(message);
}

function errorOf(socket: H2WebSocket): Record<string, unknown> {
  return JSON.parse(socket.body) as Record<string, unknown>;
}

describe('WebSocket over HTTP/2 (RFC 8441)', () => {
  let cert: ReturnType<typeof makeSelfSignedCert>;
  let echo: EchoUpstream;
  let wrong: Awaited<ReturnType<typeof startWrongUpstream>>;
  let gateway: GatewayProcess;
  let session: http2.ClientHttp2Session;
  let config: (extra?: string) => string;

  before(async () => {
    cert = makeSelfSignedCert(['gw.test']);
    echo = await startEchoUpstream();
    wrong = await startWrongUpstream();
    config = (extra = '') => routes(echo.origin, wrong.origin, extra).replace('CERT', cert.certPath).replace('KEY', cert.keyPath);
    gateway = await startGatewayProcess({
      config: config(`  - { id: removed, path: /removed, upstream: "${echo.origin}", stripPath: false, websocket: true }\n`),
      env: { DRAIN_DELAY_SECONDS: '0', DRAIN_TIMEOUT_SECONDS: '20' },
    });
    session = await h2Connect(tlsPortOf(gateway));
  });

  after(async () => {
    session?.destroy();
    await gateway?.stop();
    await echo?.close();
    await wrong?.close();
    cert?.remove();
  });

  const live = async (): Promise<http2.ClientHttp2Session> => {
    if (session.closed || session.destroyed) session = await h2Connect(tlsPortOf(gateway));
    return session;
  };

  test('advertises SETTINGS_ENABLE_CONNECT_PROTOCOL; relays frames both ways through an HTTP/1.1 upgrade, and counts the connection', async () => {
    assert.equal(session.remoteSettings.enableConnectProtocol, true);
    const ws = await openH2WebSocket(await live(), '/echo?room=2', { 'sec-websocket-protocol': 'chat' });
    assert.equal(ws.status, 200, ws.body);
    assert.equal(ws.headers['sec-websocket-accept'], undefined, 'RFC 8441 5: no Sec-WebSocket-Accept over HTTP/2');
    assert.equal(ws.headers['sec-websocket-protocol'], 'chat', "the upstream's chosen subprotocol");
    assert.equal(ws.headers['upgrade'], undefined);
    assert.match(String(ws.headers['x-correlation-id']), /\S/);
    assert.equal(echo.upgrades.at(-1), '/echo?room=2');
    ws.send('hello over h2');
    const text = await ws.next();
    assert.equal(text.opcode, 1);
    assert.equal(text.payload.toString(), 'hello over h2');
    // Larger than the HTTP/2 initial window (65,535): flow control and backpressure on both hops.
    const large = Buffer.alloc(300_000, 3);
    large[200_001] = 8;
    ws.send(large);
    const back = await ws.next();
    assert.equal(back.opcode, 2);
    assert.deepEqual(back.payload, large);
    // Past proxy.requestTimeout and the route's timeout.request: the tunnel is no request.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    ws.send('later');
    assert.equal((await ws.next()).payload.toString(), 'later');
    await eventually(async () => (await openGauge(gateway, 'echo')) === 1, 'the gauge did not count the connection');
    ws.close(1000);
    assert.equal(await withTimeout(ws.closed, 10_000, 'no close'), 1000);
    await eventually(async () => (await openGauge(gateway, 'echo')) === 0, 'the gauge did not drop the connection');
    assert.match((await request(`${gateway.url}/metrics`)).text, /^gateway_requests_total\{route="echo",method="GET",status="200"\} 1$/m);
  });

  test('the upstream handshake carried a key of the gateway, the version and the subprotocol', async () => {
    const seen = echo.handshakes.at(-1);
    assert.ok(seen);
    assert.equal(seen['upgrade'], 'websocket');
    assert.equal(seen['sec-websocket-version'], '13');
    assert.equal(seen['sec-websocket-protocol'], 'chat');
    assert.match(String(seen['sec-websocket-key']), /^[A-Za-z0-9+/]{22}==$/);
  });

  test('the per-route limit answers 503 with the spec body; a freed place is taken again', async () => {
    const first = await openH2WebSocket(await live(), '/limited');
    assert.equal(first.status, 200);
    const refused = await openH2WebSocket(await live(), '/limited');
    assert.equal(refused.status, 503);
    assert.equal(errorOf(refused)['message'], 'Too many WebSocket connections on this route');
    first.close(1000);
    await first.closed;
    await eventually(async () => (await openGauge(gateway, 'limited')) === 0, 'the closed connection kept its place');
    const again = await openH2WebSocket(await live(), '/limited');
    assert.equal(again.status, 200);
    again.send('again');
    assert.equal((await again.next()).payload.toString(), 'again');
    again.close(1000);
    await again.closed;
  });

  test('an idle connection is closed with 1001 for both peers', async () => {
    const ws = await openH2WebSocket(await live(), '/idle');
    assert.equal(ws.status, 200);
    ws.send('one');
    assert.equal((await ws.next()).payload.toString(), 'one');
    assert.equal(await withTimeout(ws.closed, 15_000, 'the idle connection was not closed'), 1001);
    await eventually(() => echo.closes.some((c) => c.url === '/idle'), 'the upstream saw no close');
    assert.deepEqual(echo.closes.filter((c) => c.url === '/idle'), [{ url: '/idle', code: 1001 }]);
  });

  test("the route's request policies apply to the handshake: rate limit 429, IP rule 403", async () => {
    const first = await openH2WebSocket(await live(), '/rated');
    assert.equal(first.status, 200);
    const limited = await openH2WebSocket(await live(), '/rated');
    assert.equal(limited.status, 429);
    assert.equal(errorOf(limited)['error'], 'Too Many Requests');
    first.close(1000);
    await first.closed;
    const denied = await openH2WebSocket(await live(), '/denied');
    assert.equal(denied.status, 403);
    assert.equal(errorOf(denied)['error'], 'Forbidden');
  });

  test('refusals with the spec body, never a tunnel: a route without websocket 405, no route 404', async () => {
    const plain = await openH2WebSocket(await live(), '/plain');
    assert.equal(plain.status, 405);
    assert.equal(errorOf(plain)['error'], 'Method Not Allowed');
    const none = await openH2WebSocket(await live(), '/nowhere');
    assert.equal(none.status, 404);
    assert.equal(errorOf(none)['error'], 'Not Found');
  });

  test('bad input gets a clean error and the gateway serves on: CONNECT without :protocol, another :protocol', async () => {
    for (const headers of [{ ':method': 'CONNECT', ':authority': 'elsewhere.example:443' }, { ':method': 'CONNECT', ':protocol': 'h2-tunnel', ':path': '/echo', ':scheme': 'https', ':authority': 'gw.test' }]) {
      const stream = (await live()).request(headers, { endStream: false });
      stream.on('error', () => undefined);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      const head = await withTimeout(new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('response', resolve)), 10_000, 'CONNECT answer');
      assert.equal(head[':status'], 405, JSON.stringify(headers));
      await withTimeout(new Promise((resolve) => stream.once('end', resolve)), 10_000, 'CONNECT body');
      assert.equal((JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>)['error'], 'Method Not Allowed');
    }
    const ws = await openH2WebSocket(await live(), '/echo');
    assert.equal(ws.status, 200);
    ws.close(1000);
    await ws.closed;
  });

  test('an upstream that does not switch: its 200 becomes 502, a refusal is relayed, a 101 with a wrong accept is 502', async () => {
    const ok = await openH2WebSocket(await live(), '/wrong/ok');
    assert.equal(ok.status, 502);
    assert.equal(errorOf(ok)['error'], 'Bad Gateway');
    const refused = await openH2WebSocket(await live(), '/wrong/refuse');
    assert.equal(refused.status, 403);
    assert.equal(refused.body, 'no way');
    const badAccept = await openH2WebSocket(await live(), '/wrong/accept');
    assert.equal(badAccept.status, 502);
    await eventually(async () => (await openGauge(gateway, 'wrong')) === 0, 'a failed handshake kept a place');
    assert.equal((await request(`${gateway.url}/health/live`)).status, 200);
  });

  test('a client that resets its stream ends the relay: the upstream connection closes and the gauge drops', async () => {
    const ws = await openH2WebSocket(await live(), '/echo?reset=1');
    assert.equal(ws.status, 200);
    ws.send('before reset');
    assert.equal((await ws.next()).payload.toString(), 'before reset');
    await eventually(async () => (await openGauge(gateway, 'echo')) === 1, 'the gauge did not count the connection');
    ws.stream.close(http2.constants.NGHTTP2_CANCEL);
    await eventually(() => echo.closes.some((c) => c.url === '/echo?reset=1'), 'the upstream connection stayed open');
    await eventually(async () => (await openGauge(gateway, 'echo')) === 0, 'the gauge kept the reset connection');
    const next = await openH2WebSocket(await live(), '/echo');
    assert.equal(next.status, 200);
    next.close(1000);
    await next.closed;
  });

  test('a reload that removes a route closes its connections with 1001 and keeps the others', async () => {
    const kept = await openH2WebSocket(await live(), '/echo');
    const doomed = await openH2WebSocket(await live(), '/removed');
    assert.equal(kept.status, 200);
    assert.equal(doomed.status, 200);
    gateway.writeConfig(config());
    gateway.signal('SIGHUP');
    assert.equal(await withTimeout(doomed.closed, 15_000, 'the removed route kept its connection'), 1001);
    await eventually(() => echo.closes.some((c) => c.url === '/removed'), 'the upstream saw no close');
    assert.deepEqual(echo.closes.filter((c) => c.url === '/removed'), [{ url: '/removed', code: 1001 }]);
    kept.send('still here');
    assert.equal((await kept.next()).payload.toString(), 'still here');
    kept.close(1000);
    await kept.closed;
  });

  test('drain (SIGTERM) closes the connections with 1001 and the process exits 0', async () => {
    const opened = [await openH2WebSocket(await live(), '/echo'), await openH2WebSocket(await live(), '/echo')];
    for (const ws of opened) assert.equal(ws.status, 200);
    const before = echo.closes.filter((c) => c.code === 1001).length;
    gateway.signal('SIGTERM');
    for (const ws of opened) assert.equal(await withTimeout(ws.closed, 15_000, 'the connection was not closed on drain'), 1001);
    assert.equal(await withTimeout(gateway.exited, 20_000, 'the gateway did not exit'), 0);
    await eventually(() => echo.closes.filter((c) => c.code === 1001).length >= before + 2, 'the upstream did not get 1001 twice');
  });
});
