import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HeldResponses, request, startGatewayProcess, startUpstream, type ClientResponse, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

describe('active health checks (spec 2.4, 3.3)', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  const routeChecks = new HeldResponses();
  let svcBody = 'ready';

  before(async () => {
    upstream = await startUpstream({
      handler: (req, res) => {
        if (req.url === '/hc/health') return routeChecks.push(res);
        if (req.url === '/svc/ready') {
          res.end(svcBody);
          return;
        }
        res.end('served');
      },
    });
    // The svc check's timeout is not what is tested: at 50 ms one stall of a loaded machine made svc
    // Unhealthy (threshold 1), and /health/ready said DEGRADED where the test expects UP.
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
upstreams:
  - { name: svc, url: "${upstream.origin}/svc", healthCheck: { enabled: true, url: "${upstream.origin}/svc/ready", interval: 1000, timeout: 1000, unhealthyThreshold: 1, healthyThreshold: 1, expectedBody: ready } }
routes:
  - { id: hc, path: /hc/*, upstream: "${upstream.origin}/hc", retry: { enabled: false, attempts: 0, backoff: exponential }, healthCheck: { enabled: true, interval: 1000, timeout: 1000, unhealthyThreshold: 2, healthyThreshold: 2 } }
  - { id: svc-route, path: /svc/*, upstream: svc }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const get = (path: string): Promise<ClientResponse> => request(`${gateway.url}${path}`);
  const served = (): number => upstream.requests.filter((r) => r.url === '/hc/x').length;
  /** Asks `path` until it answers `status` (bounded: fails naming the last status). */
  const answers = async (path: string, status: number, why: string): Promise<void> => {
    const deadline = Date.now() + 20_000;
    let last = (await get(path)).status;
    while (last !== status) {
      if (Date.now() > deadline) assert.fail(`${path} still answers ${last}, not ${status}, after 20 s: ${why}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      last = (await get(path)).status;
    }
  };

  test('the default check url is the upstream plus /health; Unknown and Healthy targets get traffic', async () => {
    assert.equal((await get('/hc/x')).status, 200, 'Unknown: no verdict yet');
    await routeChecks.answer(200);
    await routeChecks.answer(200);
    assert.equal((await get('/hc/x')).status, 200);
  });

  test('Unhealthy only after unhealthyThreshold consecutive failures; then 503 at once, no upstream call', async () => {
    await routeChecks.answer(500);
    assert.equal((await get('/hc/x')).status, 200, 'one failure of two: Degraded, still served');
    await routeChecks.answer(500);
    const calls = served();
    const res = await get('/hc/x');
    assert.equal(res.status, 503);
    const body = res.json<{ error: string; message: string; retryAfter: number }>();
    assert.equal(body.error, 'Service Unavailable');
    assert.equal(body.message, 'Upstream is unhealthy');
    assert.equal(res.headers['retry-after'], String(body.retryAfter));
    assert.equal(served(), calls, 'no doomed upstream call');
    const ready = await get('/health/ready');
    assert.equal(ready.status, 200);
    assert.equal(ready.json<{ status: string }>().status, 'DEGRADED');
  });

  test('Healthy again only after healthyThreshold consecutive successes', async () => {
    await routeChecks.answer(200);
    assert.equal((await get('/hc/x')).status, 503, 'one success of two');
    await routeChecks.answer(500);
    await routeChecks.answer(200);
    assert.equal((await get('/hc/x')).status, 503, 'the failure started the count again');
    await routeChecks.answer(200);
    assert.equal((await get('/hc/x')).status, 200);
    assert.equal((await get('/health/ready')).json<{ status: string }>().status, 'UP');
  });

  test('upstream-level check from proxy.yml with an expected body text', async () => {
    svcBody = 'starting';
    await answers('/svc/x', 503, '"starting" lacks the expected text "ready"');
    svcBody = 'ready';
    await answers('/svc/x', 200, '"ready" is the expected text');
  });
});
