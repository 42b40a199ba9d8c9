import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedPort, request, startGatewayProcess, startUpstream, type ClientResponse, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

interface ErrorBody {
  error: string;
  message: string;
  correlationId: string;
  retryAfter: number;
}

interface DeepHealth {
  circuitBreakers: Record<string, { state: string; failures: number; successes: number; lastFailureTime: string | null }>;
}

/**
 * Polls `probe` until it returns true. The deadline is generous on purpose: it bounds a hang, it is
 * not a timing assertion (a loaded machine may need many seconds where an idle one needs 300 ms).
 */
async function eventually(probe: () => Promise<boolean>, what: string, deadlineMs = 30_000): Promise<void> {
  const giveUpAt = Date.now() + deadlineMs;
  while (Date.now() < giveUpAt) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`never happened within ${deadlineMs} ms: ${what}`);
}

/**
 * Open timeout of the `cb` route. Long enough that the few back-to-back requests which must still
 * find the breaker OPEN get there on a machine at load 20 (300 ms did not), short enough to wait for.
 */
const CB_OPEN_MS = 5000;

describe('circuit breakers (spec 3.1)', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  /** Status the upstream answers, per first path segment. */
  const modes = new Map<string, number>();
  const seen = (prefix: string): number => upstream.requests.filter((r) => r.url.startsWith(prefix)).length;

  before(async () => {
    const refused = await refusedPort();
    upstream = await startUpstream({
      handler: (req, res) => {
        const segment = (req.url ?? '/').split('/')[1] ?? '';
        if (segment === 'hang') return;
        res.writeHead(modes.get(segment) ?? 200);
        res.end(segment);
      },
    });
    const noRetry = 'retry: { enabled: false, attempts: 0, backoff: exponential }';
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
upstreams:
  - { name: svc, url: "${upstream.origin}/svc", circuitBreaker: { enabled: true, failureThreshold: 2, timeout: 60000 } }
routes:
  - { id: cb, path: /cb/*, upstream: "${upstream.origin}/cb", ${noRetry}, circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 4, timeout: ${CB_OPEN_MS}, resetTimeout: 60000 } }
  - { id: fb, path: /fb/*, upstream: "${upstream.origin}/fb", ${noRetry}, circuitBreaker: { enabled: true, threshold: 100, volumeThreshold: 1, timeout: 60000, fallback: { status: 200, body: '{"cached":true}', headers: { content-type: application/json, x-fallback: "1" } } } }
  - { id: st, path: /st/*, upstream: "${upstream.origin}/st", ${noRetry}, circuitBreaker: { enabled: true, threshold: 30, volumeThreshold: 2, timeout: 60000, errorStatuses: [429] } }
  - { id: net, path: /net/*, upstream: "http://127.0.0.1:${refused}", ${noRetry}, circuitBreaker: { enabled: true, threshold: 100, volumeThreshold: 2, timeout: 60000 } }
  - { id: to, path: /to/*, upstream: "${upstream.origin}/hang", ${noRetry}, timeout: { request: 200 }, circuitBreaker: { enabled: true, threshold: 100, volumeThreshold: 1, timeout: 60000 } }
  - { id: up, path: /up/*, upstream: svc, ${noRetry} }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const get = (path: string, headers: Record<string, string> = {}): Promise<ClientResponse> => request(`${gateway.url}${path}`, { headers });
  const deep = async (): Promise<DeepHealth> => (await get('/health/deep')).json<DeepHealth>();

  test('CLOSED -> OPEN once the error percent is reached with the volume threshold met; OPEN answers 503 without an upstream call', async () => {
    modes.set('cb', 500);
    for (let i = 0; i < 3; i += 1) assert.equal((await get('/cb/x')).status, 500);
    assert.equal((await deep()).circuitBreakers['route:cb']?.state, 'CLOSED', '3 outcomes < volumeThreshold 4');
    assert.equal((await get('/cb/x')).status, 500);
    const calls = seen('/cb');
    const res = await get('/cb/x', { 'x-correlation-id': 'cb-1' });
    assert.equal(res.status, 503);
    const body = res.json<ErrorBody>();
    assert.deepEqual({ ...body, retryAfter: 1 }, { error: 'Service Unavailable', message: 'Circuit breaker is open', correlationId: 'cb-1', retryAfter: 1 });
    assert.ok(Number.isInteger(body.retryAfter) && body.retryAfter >= 1);
    assert.equal(res.headers['retry-after'], String(body.retryAfter));
    assert.equal(seen('/cb'), calls, 'no upstream call while OPEN');
    const status = (await deep()).circuitBreakers['route:cb'];
    assert.equal(status?.state, 'OPEN');
    assert.ok(status?.lastFailureTime !== null);
  });

  /** Waits until /health/deep reports `route:cb` HALF_OPEN: its open timeout ran out (no request sent). */
  const cbHalfOpen = (): Promise<void> =>
    eventually(async () => (await deep()).circuitBreakers['route:cb']?.state === 'HALF_OPEN', 'route:cb reported HALF_OPEN after its open timeout');

  test('OPEN -> HALF_OPEN after the timeout; a failed test request re-opens at once', async () => {
    await cbHalfOpen();
    // Still failing: the first request let through after the timeout is a test request; it fails.
    const before = seen('/cb');
    assert.equal((await get('/cb/x')).status, 500, 'the test request reaches the upstream');
    assert.equal(seen('/cb'), before + 1);
    assert.equal((await deep()).circuitBreakers['route:cb']?.state, 'OPEN', 're-opened by the failed test request');
    const calls = seen('/cb');
    assert.equal((await get('/cb/x')).status, 503, 're-opened: answered without the upstream');
    assert.equal(seen('/cb'), calls);
  });

  test('HALF_OPEN -> CLOSED after successThreshold (2) successful test requests', async () => {
    modes.set('cb', 200);
    await cbHalfOpen();
    assert.equal((await get('/cb/x')).status, 200, 'the first test request passes');
    assert.equal((await deep()).circuitBreakers['route:cb']?.state, 'HALF_OPEN', 'one success of two');
    assert.equal((await get('/cb/x')).status, 200);
    assert.equal((await deep()).circuitBreakers['route:cb']?.state, 'CLOSED');
    for (let i = 0; i < 5; i += 1) assert.equal((await get('/cb/x')).status, 200);
  });

  test('OPEN with a configured fallback answers the fallback, without an upstream call', async () => {
    modes.set('fb', 503);
    assert.equal((await get('/fb/x')).status, 503);
    const calls = seen('/fb');
    const res = await get('/fb/x');
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-fallback'], '1');
    assert.deepEqual(res.json(), { cached: true });
    assert.equal(seen('/fb'), calls);
  });

  test('errorStatuses: only the configured statuses count as failures', async () => {
    modes.set('st', 500);
    for (let i = 0; i < 4; i += 1) assert.equal((await get('/st/x')).status, 500, '500 is not in errorStatuses [429]: 0%');
    modes.set('st', 429);
    assert.equal((await get('/st/x')).status, 429, '1 of 5 = 20% < 30%');
    assert.equal((await get('/st/x')).status, 429, '2 of 6 = 33% >= 30%: opens');
    assert.equal((await get('/st/x')).status, 503);
  });

  test('network errors count as failures', async () => {
    assert.equal((await get('/net/x')).status, 502);
    assert.equal((await get('/net/x')).status, 502);
    assert.equal((await get('/net/x')).status, 503);
  });

  test('upstream timeouts count as failures', async () => {
    assert.equal((await get('/to/x')).status, 504);
    assert.equal((await get('/to/x')).status, 503);
  });

  test('upstream-level breaker from proxy.yml: failureThreshold consecutive failures; /health/deep lists it, readiness is DOWN when every upstream breaker is open, the state is a metric', async () => {
    assert.equal((await get('/health/ready')).status, 200);
    modes.set('svc', 502);
    assert.equal((await get('/up/x')).status, 502);
    assert.equal((await deep()).circuitBreakers['svc']?.failures, 1);
    assert.equal((await get('/up/x')).status, 502);
    const res = await get('/up/x');
    assert.equal(res.status, 503);
    assert.equal(res.json<ErrorBody>().message, 'Circuit breaker is open');
    assert.ok(Number(res.headers['retry-after']) > 1, 'timeout 60000: retry much later');
    const breakers = (await deep()).circuitBreakers;
    assert.equal(breakers['svc']?.state, 'OPEN');
    assert.equal(breakers['route:cb']?.state, 'CLOSED');
    const ready = await get('/health/ready');
    assert.equal(ready.status, 503);
    assert.equal(ready.json<{ checks: { upstreams: string } }>().checks.upstreams, 'DOWN');
    const metrics = (await get('/metrics')).text;
    assert.match(metrics, /gateway_circuit_breaker_state\{breaker="svc",kind="upstream"\} 2/);
    assert.match(metrics, /gateway_circuit_breaker_state\{breaker="route:cb",kind="route"\} 0/);
  });
});
