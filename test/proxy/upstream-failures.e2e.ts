import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { refusedPort, request, startGatewayProcess, startUnresponsiveListener, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

interface ErrorBody {
  error: string;
  message: string;
  correlationId: string;
}

describe('upstream failures', () => {
  let slow: LoopbackUpstream;
  let hanging: LoopbackUpstream;
  let blackhole: { port: number; close(): void };
  let gateway: GatewayProcess;
  const hangingClosed: string[] = [];

  before(async () => {
    const refused = await refusedPort();
    blackhole = await startUnresponsiveListener();
    slow = await startUpstream({
      handler: (_req, res) => {
        setTimeout(() => {
          if (!res.destroyed) res.end('late');
        }, 3000);
      },
    });
    hanging = await startUpstream({
      streaming: (req, res) => {
        res.on('close', () => hangingClosed.push(req.url ?? ''));
      },
    });
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
routes:
  - { path: /refused/*, upstream: "http://127.0.0.1:${refused}" }
  - { path: /slow/*, upstream: "${slow.origin}", timeout: { request: 300 } }
  - { path: /blackhole/*, upstream: "http://127.0.0.1:${blackhole.port}", timeout: { connect: 300, request: 10000 } }
  - { path: /hang/*, upstream: "${hanging.origin}", timeout: { request: 60000 } }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await Promise.all([slow?.close(), hanging?.close()]);
    blackhole?.close();
  });

  test('an upstream that refuses connections gives 502 "Upstream error"', async () => {
    const res = await request(`${gateway.url}/refused/a`, { headers: { 'x-correlation-id': 'r-1' } });
    assert.equal(res.status, 502);
    assert.deepEqual(res.json<ErrorBody>(), { error: 'Bad Gateway', message: 'Upstream error', correlationId: 'r-1' });
  });

  test('an upstream slower than timeout.request gives 504', async () => {
    const res = await request(`${gateway.url}/slow/a`);
    assert.equal(res.status, 504);
    assert.equal(res.json<ErrorBody>().error, 'Gateway Timeout');
    assert.equal(res.json<ErrorBody>().message, 'Upstream request timed out');
  });

  test('an upstream that never completes the TCP handshake gives 504 after timeout.connect', async () => {
    const res = await request(`${gateway.url}/blackhole/a`);
    assert.equal(res.status, 504);
    assert.equal(res.json<ErrorBody>().message, 'Upstream connection timed out');
  });

  test('when the client goes away the upstream request is aborted too', async () => {
    await new Promise<void>((resolve) => {
      const req = http.request(`${gateway.url}/hang/abort-me`, { agent: false });
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 300);
    });
    for (let i = 0; i < 50 && !hangingClosed.includes('/abort-me'); i += 1) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(hangingClosed, ['/abort-me']);
    assert.equal(hanging.aborted, 1);
  });

  test('failures are counted with their status and the route id', async () => {
    const metrics = (await request(`${gateway.url}/metrics`)).text;
    assert.match(metrics, /gateway_requests_total\{route="file-refused-star",method="GET",status="502"\} 1/);
    assert.match(metrics, /gateway_requests_total\{route="file-slow-star",method="GET",status="504"\} 1/);
  });
});
