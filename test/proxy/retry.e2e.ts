import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedPort, request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

/**
 * The upstream answers each path with the next entry of its script: a status, `hang` (never
 * answers) or `cut` (200 head and part of the body, then the connection is reset).
 */
describe('retries (decision 16) and per-attempt timeouts', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  const scripts = new Map<string, string[]>();
  const seen = (path: string): number => upstream.requests.filter((r) => r.url === path).length;

  before(async () => {
    const refused = await refusedPort();
    upstream = await startUpstream({
      handler: (req, res, body) => {
        const script = scripts.get(req.url ?? '') ?? [];
        const step = script.shift() ?? '200';
        if (step === 'hang') return;
        if (step === 'cut') {
          res.writeHead(200, { 'content-length': '100' });
          res.write('partial');
          setTimeout(() => res.destroy(), 20);
          return;
        }
        res.writeHead(Number(step), { 'content-type': 'text/plain' });
        res.end(`${step}:${body.toString('utf8')}`);
      },
    });
    const retry = 'retry: { enabled: true, attempts: 3, backoff: exponential, initialDelay: 10, maxDelay: 40, jitter: false }';
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
routes:
  - { id: r, path: /r/*, upstream: "${upstream.origin}", ${retry} }
  - { id: rp, path: /rp/*, upstream: "${upstream.origin}", retry: { enabled: true, attempts: 2, backoff: exponential, initialDelay: 10, methods: [POST] } }
  - { id: off, path: /off/*, upstream: "${upstream.origin}", retry: { enabled: false, attempts: 3, backoff: exponential } }
  - { id: rt, path: /rt/*, upstream: "${upstream.origin}", timeout: { request: 1500 }, ${retry} }
  - { id: refused, path: /refused/*, upstream: "http://127.0.0.1:${refused}", ${retry} }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const send = (method: string, path: string, body?: string) => request(`${gateway.url}${path}`, { method, body, headers: body === undefined ? {} : { 'content-type': 'text/plain' } });

  test('GET is retried after 503 and 502 and gets the third answer', async () => {
    scripts.set('/a', ['503', '502', '200']);
    const res = await send('GET', '/r/a');
    assert.equal(res.status, 200);
    assert.equal(seen('/a'), 3);
  });

  test('attempts are retries after the first: 1 + 3 calls, then the last answer is passed on', async () => {
    scripts.set('/b', ['503', '503', '503', '503', '503', '503']);
    const res = await send('GET', '/r/b');
    assert.equal(res.status, 503);
    assert.equal(res.text, '503:', 'the upstream answer itself, not a gateway body');
    assert.equal(seen('/b'), 4);
  });

  test('only 502, 503, 504 are retried: a 500 is passed on at once', async () => {
    scripts.set('/c', ['500', '200']);
    assert.equal((await send('GET', '/r/c')).status, 500);
    assert.equal(seen('/c'), 1);
  });

  test('POST is not retried unless retry.methods lists it', async () => {
    scripts.set('/d', ['503', '200']);
    assert.equal((await send('POST', '/r/d', 'x')).status, 503);
    assert.equal(seen('/d'), 1);
    scripts.set('/e', ['503', '200']);
    const res = await send('POST', '/rp/e', 'payload');
    assert.equal(res.status, 200);
    assert.equal(res.text, '200:payload');
    assert.equal(seen('/e'), 2);
  });

  test('PUT bodies are buffered and replayed identically', async () => {
    scripts.set('/f', ['502', '200']);
    const res = await send('PUT', '/r/f', 'the body');
    assert.equal(res.status, 200);
    assert.deepEqual(
      upstream.requests.filter((r) => r.url === '/f').map((r) => r.body.toString('utf8')),
      ['the body', 'the body'],
    );
  });

  test('retry.enabled false: one attempt', async () => {
    scripts.set('/g', ['503', '200']);
    assert.equal((await send('GET', '/off/g')).status, 503);
    assert.equal(seen('/g'), 1);
  });

  test('never once response bytes reached the client: a response cut mid-body is not retried', async () => {
    scripts.set('/h', ['cut', '200']);
    await assert.rejects(send('GET', '/r/h'));
    assert.equal(seen('/h'), 1);
  });

  test('connection errors are retried (each retry counted in gateway_upstream_retries_total), then 502', async () => {
    const res = await send('GET', '/refused/x');
    assert.equal(res.status, 502);
    const metrics = (await send('GET', '/metrics')).text;
    assert.match(metrics, /gateway_upstream_retries_total\{route="refused"\} 3\b/);
  });

  test('the timeout applies per attempt, inside the route request timeout: 503 then a hanging attempt gives 504', async () => {
    scripts.set('/i', ['503', 'hang', '200']);
    const res = await send('GET', '/rt/i');
    assert.equal(res.status, 504);
    assert.equal(seen('/i'), 2, 'the timed-out attempt used the rest of the budget: no third attempt');
  });
});
