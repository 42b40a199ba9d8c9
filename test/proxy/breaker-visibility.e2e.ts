import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, startGatewayProcess, startUpstream, type ClientResponse, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

interface Ready {
  status: string;
  checks: { config: string; upstreams: string };
}

interface DeepHealth {
  circuitBreakers: Record<string, { state: string }>;
}

/** Polls `probe` until it returns true (bounded: fails after `tries`). */
async function eventually(probe: () => Promise<boolean>, what: string, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i += 1) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`never happened: ${what}`);
}

/** The value of gateway_circuit_breaker_state for one breaker, or undefined when it is not exported. */
function breakerGauge(metrics: string, breaker: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`gateway_circuit_breaker_state{breaker="${breaker}",`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * What the outside sees of route-level breakers: /health/ready (decision 19) and the
 * gateway_circuit_breaker_state gauge, which must agree with /health/deep even when a breaker
 * moved from OPEN to HALF_OPEN by time alone (docs/resilience.md).
 */
describe('route breakers in readiness and metrics', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    upstream = await startUpstream({
      handler: (_req, res) => {
        res.writeHead(500);
        res.end('down');
      },
    });
    const breaker = (timeout: number): string => `circuitBreaker: { enabled: true, threshold: 100, volumeThreshold: 1, timeout: ${timeout} }`;
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
upstreams:
  - { name: svc, url: "${upstream.origin}/svc", circuitBreaker: { enabled: true, failureThreshold: 5 } }
routes:
  - { id: held, path: /held/*, upstream: "${upstream.origin}/held", retry: { enabled: false }, ${breaker(600000)} }
  - { id: brief, path: /brief/*, upstream: "${upstream.origin}/brief", retry: { enabled: false }, ${breaker(400)} }
  - { id: plain, path: /plain/*, upstream: svc }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const get = (path: string): Promise<ClientResponse> => request(`${gateway.url}${path}`);
  const ready = async (): Promise<{ status: number; body: Ready }> => {
    const res = await get('/health/ready');
    const { status, checks } = res.json<Ready>();
    return { status: res.status, body: { status, checks } };
  };
  const deepState = async (name: string): Promise<string | undefined> => (await get('/health/deep')).json<DeepHealth>().circuitBreakers[name]?.state;

  test("/health/ready is DEGRADED (200) while a route's own breaker is OPEN, though every upstream breaker is closed", async () => {
    assert.deepEqual(await ready(), { status: 200, body: { status: 'UP', checks: { config: 'UP', upstreams: 'UP' } } });
    assert.equal((await get('/held/x')).status, 500);
    assert.equal(await deepState('route:held'), 'OPEN');
    assert.equal(await deepState('svc'), 'CLOSED');
    assert.deepEqual(await ready(), { status: 200, body: { status: 'DEGRADED', checks: { config: 'UP', upstreams: 'DEGRADED' } } });
  });

  test('gateway_circuit_breaker_state shows HALF_OPEN (1) once the open timeout passed, with no request in between', async () => {
    assert.equal((await get('/brief/x')).status, 500);
    assert.equal((await get('/brief/x')).status, 503, 'the failure opened the breaker');
    const requestsBefore = upstream.requests.length;
    await eventually(async () => (await deepState('route:brief')) === 'HALF_OPEN', '/health/deep reports HALF_OPEN after the 400 ms open timeout');
    const metrics = (await get('/metrics')).text;
    assert.equal(breakerGauge(metrics, 'route:brief'), 1, 'the gauge agrees with /health/deep');
    assert.equal(breakerGauge(metrics, 'route:held'), 2, 'still OPEN');
    assert.equal(breakerGauge(metrics, 'svc'), 0);
    assert.equal(upstream.requests.length, requestsBefore, 'no traffic moved the breaker');
    assert.equal((await ready()).body.status, 'DEGRADED', 'route:held is still OPEN');
  });
});
