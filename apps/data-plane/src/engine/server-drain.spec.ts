import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { deferred } from '@gateway/testing';
import { ServerDrain } from './server-drain';

/** A real server whose `/hold` requests wait for the test; everything else answers at once. */
async function heldServer(): Promise<{ server: http.Server; port: number; held: Promise<http.ServerResponse>; drain: ServerDrain }> {
  const held = deferred<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    if (req.url === '/hold') held.resolve(res);
    else res.end('now');
  });
  // Longer than any drain timeout below: a connection left open is cut by the drain, not by node.
  server.keepAliveTimeout = 60_000;
  const drain = new ServerDrain(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, held: held.promise, drain };
}

function get(port: number, path: string, agent: http.Agent): Promise<{ res: http.IncomingMessage; body: Promise<string>; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      const body = new Promise<string>((done, fail) => {
        res.on('end', () => done(text));
        res.on('error', fail);
        res.on('close', () => (res.complete ? undefined : fail(new Error('cut'))));
      });
      body.catch(() => undefined);
      resolve({ res, body, socket: req.socket as Socket });
    });
    req.on('error', reject);
  });
}

test('closes idle keep-alive connections, answers the request in flight with Connection: close, and resolves once it is done', async () => {
  const { port, held, drain } = await heldServer();
  const agent = new http.Agent({ keepAlive: true });
  const idle = await get(port, '/now', agent);
  assert.equal(await idle.body, 'now');
  const idleClosed = new Promise<void>((resolve) => idle.socket.once('close', () => resolve()));

  // Another agent: this one would reuse the idle connection.
  const busyAgent = new http.Agent({ keepAlive: true });
  const inFlight = get(port, '/hold', busyAgent);
  const res = await held;
  assert.equal(drain.draining, false);
  const drained = drain.drain({ delayMs: 0, timeoutMs: 10_000 });
  assert.equal(drain.draining, true);
  await idleClosed;
  res.end('held');
  const answer = await inFlight;
  assert.equal(answer.res.headers.connection, 'close');
  assert.equal(await answer.body, 'held');
  assert.deepEqual(await drained, { streamsEnded: 0, webSocketsClosed: 0, connectionsCut: 0 });
  agent.destroy();
  busyAgent.destroy();
});

test('a response whose head was sent before the drain ends its connection once complete', async () => {
  const { port, held, drain } = await heldServer();
  const agent = new http.Agent({ keepAlive: true });
  const inFlight = get(port, '/hold', agent);
  const res = await held;
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.write('part ');
  const started = await inFlight;
  assert.equal(started.res.headers.connection, 'keep-alive');
  const closed = new Promise<void>((resolve) => started.socket.once('close', () => resolve()));
  const drained = drain.drain({ delayMs: 0, timeoutMs: 10_000 });
  res.end('end');
  assert.equal(await started.body, 'part end');
  await closed;
  assert.deepEqual(await drained, { streamsEnded: 0, webSocketsClosed: 0, connectionsCut: 0 });
  agent.destroy();
});

test('what is still running at the drain timeout is cut and counted', async () => {
  const { port, held, drain } = await heldServer();
  const agent = new http.Agent({ keepAlive: true });
  const request = new Promise<void>((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/hold', agent }, () => resolve());
    req.on('error', reject);
  });
  await held;
  const outcome = await drain.drain({ delayMs: 0, timeoutMs: 50 });
  assert.deepEqual(outcome, { streamsEnded: 0, webSocketsClosed: 0, connectionsCut: 1 });
  await assert.rejects(request, /socket hang up|ECONNRESET/);
  agent.destroy();
});
