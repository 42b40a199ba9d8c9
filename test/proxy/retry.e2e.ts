import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedPort, request, startGatewayProcess, startUnresponsiveListener, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

/**
 * The upstream answers each path with the next entry of its script: a status, `hang` (never
 * answers) or `cut` (200 head and part of the body, then the connection is reset).
 */
describe('retries (decision 16) and per-attempt timeouts', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  let blackhole: { port: number; close(): void };
  const scripts = new Map<string, string[]>();
  const seen = (path: string): number => upstream.requests.filter((r) => r.url === path).length;

  before(async () => {
    const refused = await refusedPort();
    blackhole = await startUnresponsiveListener();
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
upstreams:
  - { name: svc, url: "${upstream.origin}", circuitBreaker: { enabled: true, failureThreshold: 2, timeout: 60000 } }
routes:
  - { id: r, path: /r/*, upstream: "${upstream.origin}", ${retry} }
  - { id: rp, path: /rp/*, upstream: "${upstream.origin}", retry: { enabled: true, attempts: 2, backoff: exponential, initialDelay: 10, methods: [POST] } }
  - { id: off, path: /off/*, upstream: "${upstream.origin}", retry: { enabled: false, attempts: 3, backoff: exponential } }
  - { id: rt, path: /rt/*, upstream: "${upstream.origin}", timeout: { request: 1500 }, ${retry} }
  - { id: refused, path: /refused/*, upstream: "http://127.0.0.1:${refused}", ${retry} }
  - { id: ct, path: /ct/*, upstream: "http://127.0.0.1:${blackhole.port}", timeout: { connect: 100, request: 10000 }, retry: { enabled: true, attempts: 2, backoff: exponential, initialDelay: 10, jitter: false } }
  - { id: rb, path: /rb/*, upstream: "${upstream.origin}", ${retry}, circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 1, timeout: 60000 } }
  - { id: ub, path: /ub/*, upstream: svc, ${retry} }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
    blackhole?.close();
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

  test('the connect timeout applies per attempt: each attempt to a peer that never accepts is cut and retried', async () => {
    // Were the timeout wrapped around the retry loop, only the first attempt would have a connect
    // deadline: the second would hang until timeout.request (10 s) and end as a request timeout.
    const res = await send('GET', '/ct/x');
    assert.equal(res.status, 504);
    assert.equal(res.json<{ message: string }>().message, 'Upstream connection timed out');
    const metrics = (await send('GET', '/metrics')).text;
    assert.match(metrics, /gateway_upstream_retries_total\{route="ct"\} 2\b/, 'both retries were made');
  });

  test('the circuit breaker is outside the retries: one exchange is one breaker outcome, whatever its attempts', async () => {
    type Breaker = { state: string; failures: number; successes: number };
    const breaker = async (name: string): Promise<Breaker | undefined> =>
      (await send('GET', '/health/deep')).json<{ circuitBreakers: Record<string, Breaker> }>().circuitBreakers[name];
    const outcome = (b: Breaker | undefined): unknown[] => [b?.state, b?.failures, b?.successes];

    // Route breaker at 50% over a volume of 1: a single failed attempt counted would open it.
    scripts.set('/j', ['503', '503', '200']);
    assert.equal((await send('GET', '/rb/j')).status, 200);
    scripts.set('/k', ['502', '200']);
    assert.equal((await send('GET', '/rb/k')).status, 200);
    assert.deepEqual([seen('/j'), seen('/k')], [3, 2]);
    assert.deepEqual(outcome(await breaker('route:rb')), ['CLOSED', 0, 2]);
    scripts.set('/l', ['503', '503', '503', '503']);
    assert.equal((await send('GET', '/rb/l')).status, 503);
    assert.equal(seen('/l'), 4);
    assert.deepEqual(outcome(await breaker('route:rb')), ['CLOSED', 1, 2], 'four failed attempts, one failure: 1 of 3 < 50%');

    // Upstream breaker opening after 2 consecutive failures.
    scripts.set('/m', ['503', '503', '200']);
    assert.equal((await send('GET', '/ub/m')).status, 200);
    assert.deepEqual(outcome(await breaker('svc')), ['CLOSED', 0, 0]);
    scripts.set('/n', ['502', '503', '503', '503']);
    assert.equal((await send('GET', '/ub/n')).status, 503);
    assert.deepEqual(outcome(await breaker('svc')), ['CLOSED', 1, 0], 'one failed exchange of four attempts');
  });
});
