import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { request, startGatewayProcess, withTimeout, type GatewayProcess } from '@gateway/testing';
import { openSocket, startEchoUpstream } from './websocket-echo';

/*
 * WebSocket proxying (docs/data-plane.md, "WebSocket"): a real `gateway start` process in front of
 * a real WebSocket echo server (the `ws` package) on loopback, driven by `ws` clients.
 */

async function refusal(url: string): Promise<{ status: number; body: string }> {
  try {
    const opened = await openSocket(url);
    opened.socket.terminate();
  } catch (error) {
    const refused = error as { status?: number; body?: string };
    if (refused.status !== undefined) return { status: refused.status, body: refused.body ?? '' };
    throw error;
  }
  return assert.fail(`${url} was not refused`);
}

const routes = (origin: string, extra = ''): string =>
  // Client and route request timeouts far below the connections' lifetimes: they bound the handshake only.
  `version: "1.0.0"\nproxy: { requestTimeout: 1500, headersTimeout: 1000 }\nroutes:\n` +
  `  - { id: echo, path: /echo, upstream: "${origin}", stripPath: false, websocket: true, timeout: { request: 1000 } }\n` +
  `  - { id: limited, path: /limited, upstream: "${origin}", stripPath: false, websocket: { enabled: true, maxConnections: 2 } }\n` +
  `  - { id: idle, path: /idle, upstream: "${origin}", stripPath: false, websocket: { enabled: true, idleTimeout: 1000 } }\n` +
  `  - { id: rated, path: /rated, upstream: "${origin}", stripPath: false, websocket: true, rateLimit: { max: 1, windowMs: 60000 } }\n` +
  `  - { id: plain, path: /plain, upstream: "${origin}", stripPath: false }\n` +
  extra;

async function openGauge(gateway: GatewayProcess, routeId: string): Promise<number> {
  const match = new RegExp(`^gateway_websocket_connections\\{route="${routeId}"\\} (\\d+)$`, 'm').exec((await request(`${gateway.url}/metrics`)).text);
  return match ? Number(match[1]) : 0;
}

async function eventually(check: () => Promise<boolean>, message: string): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(message);
}

describe('WebSocket proxying', () => {
  let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;
  let gateway: GatewayProcess;
  const wsUrl = (path: string): string => `${gateway.url.replace('http://', 'ws://')}${path}`;

  before(async () => {
    upstream = await startEchoUpstream();
    gateway = await startGatewayProcess({
      config: routes(upstream.origin, `  - { id: removed, path: /removed, upstream: "${upstream.origin}", stripPath: false, websocket: true }\n`),
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  test('echoes text and binary messages both ways, large ones included, and counts the open connection', async () => {
    const opened = await openSocket(wsUrl('/echo?room=1'));
    opened.socket.send('hello');
    assert.equal(String(await opened.next()), 'hello');
    const large = Buffer.alloc(300_000, 7);
    large[12345] = 9;
    opened.socket.send(large);
    assert.deepEqual(Buffer.from((await opened.next()) as Buffer), large);
    assert.deepEqual(upstream.upgrades.at(-1), '/echo?room=1');
    // Past proxy.requestTimeout and the route's timeout.request: an upgraded connection is not a request.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    opened.socket.send('later');
    assert.equal(String(await opened.next()), 'later');
    await eventually(async () => (await openGauge(gateway, 'echo')) === 1, 'the gauge did not count the connection');
    opened.socket.close(1000);
    assert.equal(await withTimeout(opened.closed, 10_000, 'no close'), 1000);
    await eventually(async () => (await openGauge(gateway, 'echo')) === 0, 'the gauge did not drop the connection');
  });

  test('a route at its connection limit answers 503 with the spec body; a freed place is taken again', async () => {
    const first = await openSocket(wsUrl('/limited'));
    const second = await openSocket(wsUrl('/limited'));
    const refused = await refusal(wsUrl('/limited'));
    assert.equal(refused.status, 503);
    const body = JSON.parse(refused.body) as Record<string, unknown>;
    assert.equal(body['error'], 'Service Unavailable');
    assert.equal(body['message'], 'Too many WebSocket connections on this route');
    assert.equal(typeof body['correlationId'], 'string');
    first.socket.close();
    await first.closed;
    await eventually(async () => (await openGauge(gateway, 'limited')) === 1, 'the closed connection kept its place');
    const third = await openSocket(wsUrl('/limited'));
    third.socket.send('again');
    assert.equal(String(await third.next()), 'again');
    second.socket.close();
    third.socket.close();
    await Promise.all([second.closed, third.closed]);
  });

  test('an idle connection is closed with 1001 for both peers', async () => {
    const opened = await openSocket(wsUrl('/idle'));
    opened.socket.send('one');
    assert.equal(String(await opened.next()), 'one');
    assert.equal(await withTimeout(opened.closed, 15_000, 'the idle connection was not closed'), 1001);
    await eventually(async () => upstream.closes.some((c) => c.url === '/idle'), 'the upstream saw no close');
    assert.deepEqual(upstream.closes.filter((c) => c.url === '/idle'), [{ url: '/idle', code: 1001 }]);
  });

  test("the route's request policies apply to the handshake (rate limit: 429)", async () => {
    const opened = await openSocket(wsUrl('/rated'));
    const refused = await refusal(wsUrl('/rated'));
    assert.equal(refused.status, 429);
    assert.equal((JSON.parse(refused.body) as Record<string, unknown>)['error'], 'Too Many Requests');
    opened.socket.close();
    await opened.closed;
  });

  test('an upgrade request on a route without websocket is served as a plain request, without the Upgrade', async () => {
    const res = await request(`${gateway.url}/plain`, { headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' } });
    assert.equal(res.status, 200);
    assert.equal(res.text, 'plain:');
    assert.equal(upstream.plainHeaders.at(-1)?.upgrade, undefined);
  });

  test('other upgrade requests (a body, another protocol) keep their body and their keep-alive connection', async () => {
    // node stops parsing at the head of any request asking for an upgrade: the body must not be lost
    // (a Content-Length sent upstream without its bytes would make the pooled upstream connection
    // read the next request as that body).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const asks = { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAARAAAAAAAIAAAAA' };
      const post = await request(`${gateway.url}/plain`, { method: 'POST', body: 'the body', headers: asks, agent });
      assert.equal(post.status, 200);
      assert.equal(post.text, 'plain:the body');
      assert.equal(upstream.plainHeaders.at(-1)?.upgrade, undefined);
      const wsWithBody = await request(`${gateway.url}/echo`, { method: 'GET', body: 'abc', headers: { connection: 'Upgrade', upgrade: 'websocket', 'content-length': '3' }, agent });
      assert.equal(wsWithBody.text, 'plain:abc');
      // The same client connection and the same pooled upstream connection serve the next request whole.
      const next = await request(`${gateway.url}/plain`, { method: 'POST', body: 'next', agent });
      assert.equal(next.text, 'plain:next');
      assert.equal((await request(`${gateway.url}/health/live`)).status, 200);
    } finally {
      agent.destroy();
    }
  });

  test('a reload that removes a route closes its connections with 1001 and keeps the others', async () => {
    const kept = await openSocket(wsUrl('/echo')).catch((e: Error) => assert.fail(`/echo: ${e.message}`));
    const doomed = await openSocket(wsUrl('/removed')).catch((e: Error) => assert.fail(`/removed: ${e.message}`));
    gateway.writeConfig(routes(upstream.origin));
    gateway.signal('SIGHUP');
    assert.equal(await withTimeout(doomed.closed, 15_000, 'the removed route kept its connection'), 1001);
    await eventually(async () => upstream.closes.some((c) => c.url === '/removed'), 'the upstream saw no close');
    assert.deepEqual(upstream.closes.filter((c) => c.url === '/removed'), [{ url: '/removed', code: 1001 }]);
    kept.socket.send('still here');
    assert.equal(String(await kept.next()), 'still here');
    assert.equal((await refusal(wsUrl('/removed'))).status, 404);
    kept.socket.close();
    await kept.closed;
  });
});

describe('WebSocket connections on drain', () => {
  let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;
  let gateway: GatewayProcess;

  before(async () => {
    upstream = await startEchoUpstream();
    gateway = await startGatewayProcess({ config: routes(upstream.origin), env: { DRAIN_DELAY_SECONDS: '0', DRAIN_TIMEOUT_SECONDS: '20' } });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  test('SIGTERM closes every connection with 1001 at drain start and the process exits 0', async () => {
    const url = `${gateway.url.replace('http://', 'ws://')}/echo`;
    const opened = await Promise.all([openSocket(url), openSocket(url)]);
    opened[0]?.socket.send('before');
    assert.equal(String(await opened[0]?.next()), 'before');
    gateway.signal('SIGTERM');
    for (const socket of opened) assert.equal(await withTimeout(socket.closed, 15_000, 'the connection was not closed on drain'), 1001);
    assert.equal(await withTimeout(gateway.exited, 20_000, 'the gateway did not exit'), 0);
    await eventually(async () => upstream.closes.filter((c) => c.code === 1001).length >= 2, 'the upstream did not get 1001 twice');
    assert.ok((await gateway.waitForOutput('webSocketsClosed', 1000)).includes('"webSocketsClosed":2'));
  });
});
