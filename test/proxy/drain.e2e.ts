import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { connectionRefused, deferred, request, startGatewayProcess, startUpstream, withTimeout, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

/*
 * The graceful drain of a data plane on SIGTERM (docs/deployment.md, "Graceful drain"), on a real
 * `gateway start` process in front of a real upstream.
 */

const configFor = (origin: string): string =>
  `version: "1.0.0"\nroutes:\n${['/fast', '/slow', '/events'].map((path) => `  - { path: ${path}, upstream: "${origin}", stripPath: false }\n`).join('')}`;

/** An upstream with a plain answer, a response the test releases, and an endless event stream. */
async function drainUpstream(): Promise<{ upstream: LoopbackUpstream; slowArrived: Promise<void>; releaseSlow: () => void }> {
  const arrived = deferred();
  const release = deferred();
  const upstream = await startUpstream({
    handler: (req, res) => {
      if (req.url === '/slow') {
        arrived.resolve();
        void release.promise.then(() => res.end('slow done'));
      } else if (req.url === '/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write('data: first\n\n');
      } else {
        res.end('fast');
      }
    },
  });
  return { upstream, slowArrived: arrived.promise, releaseSlow: () => release.resolve() };
}

/** A GET whose response head and body are reported separately (the body may end long after). */
function startGet(url: string, agent: http.Agent | false = false): { socket: Promise<net.Socket>; head: Promise<http.IncomingMessage>; body: Promise<{ text: string; complete: boolean }> } {
  const body = deferred<{ text: string; complete: boolean }>();
  const socket = deferred<net.Socket>();
  const head = new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      resolve(res);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => body.resolve({ text, complete: res.complete }));
      res.on('error', (error) => body.reject(error));
      res.on('close', () => {
        if (!res.complete) body.reject(new Error(`response to ${url} was cut`));
      });
    });
    req.once('socket', (s) => socket.resolve(s));
    req.on('error', (error) => {
      reject(error);
      body.reject(error);
    });
  });
  // Unobserved outcomes (a test that only looks at the body) must not be unhandled rejections.
  head.catch(() => undefined);
  return { socket: socket.promise, head, body: body.promise };
}

describe('graceful drain of a data plane on SIGTERM', () => {
  let fixture: Awaited<ReturnType<typeof drainUpstream>>;
  let gateway: GatewayProcess;

  before(async () => {
    fixture = await drainUpstream();
    // A delay long enough for the requests below to land inside it on a loaded machine.
    gateway = await startGatewayProcess({ config: configFor(fixture.upstream.origin), env: { DRAIN_DELAY_SECONDS: '3', DRAIN_TIMEOUT_SECONDS: '30' } });
  });

  after(async () => {
    fixture.releaseSlow();
    await gateway?.stop();
    await fixture?.upstream.close();
  });

  test('not ready at once, serves through the delay, then closes idle connections, ends streams, finishes in-flight requests and exits 0', async () => {
    assert.equal((await request(`${gateway.url}/health/serving`)).status, 200);

    // An idle keep-alive connection, left open in the agent's pool.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const warm = startGet(`${gateway.url}/fast`, agent);
    const idleSocket = await warm.socket;
    assert.equal((await warm.body).text, 'fast');
    const idleClosed = new Promise<void>((resolve) => idleSocket.once('close', () => resolve()));

    // Keep-alive, so that `Connection: close` is the drain's answer rather than an echo of the client's.
    const slowAgent = new http.Agent({ keepAlive: true });
    const slow = startGet(`${gateway.url}/slow`, slowAgent);
    await withTimeout(fixture.slowArrived, 10_000, '/slow did not reach the upstream');
    const events = startGet(`${gateway.url}/events`);
    const eventsRes = await events.head;
    assert.equal(eventsRes.headers['content-type'], 'text/event-stream');

    gateway.signal('SIGTERM');
    await gateway.waitForOutput('draining: not ready');

    // Inside the drain delay: probes say go elsewhere, traffic is still served.
    const serving = await request(`${gateway.url}/health/serving`);
    assert.equal(serving.status, 503);
    assert.equal(serving.json()['draining'], true);
    assert.equal((await request(`${gateway.url}/health/ready`)).status, 503);
    const during = await request(`${gateway.url}/fast`);
    assert.equal(during.status, 200);
    assert.equal(during.text, 'fast');

    // After the delay: the idle connection is closed and the event stream ends (complete, not cut).
    await withTimeout(idleClosed, 20_000, 'the idle keep-alive connection was not closed');
    const stream = await withTimeout(events.body, 20_000, 'the event stream was not ended');
    assert.equal(stream.complete, true);
    assert.match(stream.text, /data: first/);
    assert.equal(await connectionRefused(gateway.port), true, 'new connections are refused after the delay');

    // The in-flight request still completes, telling the client the connection closes.
    fixture.releaseSlow();
    const slowRes = await slow.head;
    assert.equal(slowRes.statusCode, 200);
    assert.equal(slowRes.headers.connection, 'close');
    assert.equal((await slow.body).text, 'slow done');

    assert.equal(await withTimeout(gateway.exited, 20_000, 'the gateway did not exit'), 0);
    agent.destroy();
    slowAgent.destroy();
  });
});

describe('drain timeout', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    // Never answers /slow: the request outlives any drain timeout.
    upstream = await startUpstream({ handler: (req, res) => (req.url === '/slow' ? undefined : res.end('fast')) });
    gateway = await startGatewayProcess({ config: configFor(upstream.origin), env: { DRAIN_DELAY_SECONDS: '0', DRAIN_TIMEOUT_SECONDS: '1' } });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  test('a request outliving the drain timeout is cut and the process still exits 0', async () => {
    const slow = startGet(`${gateway.url}/slow`);
    // The request has reached the upstream once it is recorded there.
    for (let i = 0; i < 200 && upstream.requests.length === 0; i += 1) await new Promise((r) => setTimeout(r, 25));
    assert.equal(upstream.requests.length, 1);
    gateway.signal('SIGTERM');
    await assert.rejects(withTimeout(slow.body, 20_000, 'the request was not cut'), /cut|hang up|ECONNRESET/);
    assert.equal(await withTimeout(gateway.exited, 20_000, 'the gateway did not exit'), 0);
    assert.ok(gateway.output.some((line) => line.includes('drain timeout reached')), 'the cut is logged');
  });
});
