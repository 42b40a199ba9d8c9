import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { assertGatewayServes, runningGateway } from './fuzz/gateway-liveness';
import { fuzzSettings, fuzzTestTimeoutMs, runFuzz } from './fuzz/fuzz-run';
import { startHostileUpstream, type HostileUpstream } from './fuzz/hostile-upstream';
import { hostileResponseArbitrary } from './fuzz/hostile-responses';
import { playSequence, responseStatuses } from './fuzz/raw-connection';

/*
 * Issue 11: no byte sequence from an upstream may end the data plane. Each case scripts hostile
 * answers on a raw loopback server and sends one to three requests for them on one connection
 * through routes with different response paths (plain head, response hooks, cache, body
 * transform, retries); the client must get an answer or a cut
 * connection within the route's small timeout, a 502/504 when the head was unusable, and the
 * process must stay alive and serve. FUZZ_SEED / FUZZ_RUNS / FUZZ_PATH as in keep-alive-fuzz.
 */

const UPSTREAM_TIMEOUT_MS = 300;
const ROUTE_VARIANTS = ['plain', 'shaped', 'cached', 'transformed', 'retried'] as const;

const settings = fuzzSettings(60);

describe('hostile upstream fuzzing', () => {
  let healthy: LoopbackUpstream;
  let hostile: HostileUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    healthy = await startUpstream({ handler: (_req, res) => res.end('ok') });
    hostile = await startHostileUpstream();
    const timeout = `timeout: { request: ${UPSTREAM_TIMEOUT_MS} }`;
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
proxy: { host: 127.0.0.1, port: 8080, requestTimeout: 5000, headersTimeout: 2000 }
upstreams:
  - { name: hostile, url: "http://127.0.0.1:${hostile.port}" }
routes:
  - { id: probe, path: /echo/*, upstream: "${healthy.origin}" }
  - { id: plain, path: /plain/*, upstream: hostile, ${timeout} }
  - { id: shaped, path: /shaped/*, upstream: hostile, ${timeout}, headers: { response: { set: { X-Served: "gw" } } } }
  - { id: cached, path: /cached/*, upstream: hostile, ${timeout}, cache: { enabled: true, ttl: 60000 } }
  - { id: transformed, path: /transformed/*, upstream: hostile, ${timeout}, transform: { response: { body: { exclude: [secret] } } } }
  - { id: retried, path: /retried/*, upstream: hostile, ${timeout}, retry: { enabled: true, attempts: 2, backoff: exponential, initialDelay: 10 } }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await Promise.all([healthy?.close(), hostile?.close()]);
  });

  test('no upstream answer ends the process; the client gets an answer or a cut connection in time', { timeout: fuzzTestTimeoutMs(settings, 3000) }, async (t) => {
    let caseNumber = 0;
    const exchange = fc.record({
      answer: hostileResponseArbitrary,
      variant: fc.constantFrom(...ROUTE_VARIANTS),
      method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST'),
      awaitReply: fc.boolean(),
    });
    // One to three requests on one keep-alive connection (pipelined unless a step waits for its
    // answer): a cut or failed answer must not take the requests after it, or the process, down.
    const property = fc.asyncProperty(fc.array(exchange, { minLength: 1, maxLength: 3 }), async (exchanges) => {
      gateway = await runningGateway(gateway);
      const steps = exchanges.map(({ answer, variant, method, awaitReply }, index) => {
        caseNumber += 1;
        // A fresh id per request: the cache route must not answer from an earlier case.
        const id = `case-${caseNumber}-${Date.now()}`;
        hostile.register(id, answer.script);
        const connection = index === exchanges.length - 1 ? 'close' : 'keep-alive';
        const body = method === 'POST' ? 'Content-Length: 2\r\n\r\nhi' : '\r\n';
        return { label: answer.script.label, bytes: `${method} /${variant}/${id} HTTP/1.1\r\nHost: gw\r\nConnection: ${connection}\r\n${body}`, cuts: [], gapMs: 0, awaitReply };
      });
      const labels = steps.map((step) => step.label).join(' | ');
      const played = await playSequence(
        gateway.port,
        { steps, ending: 'await-close' },
        // Two attempts per request on the retried route, each bounded by the route timeout, plus slack for a loaded machine.
        { closeWithinMs: exchanges.length * UPSTREAM_TIMEOUT_MS * 2 + 3000 },
      );
      assert.equal(played.hung, false, `the client connection was held past the route timeouts (${labels})`);
      const statuses = responseStatuses(played.received);
      assert.ok(!statuses.includes(500), `a 500 for ${labels}:\n${played.received.slice(0, 1000)}`);
      if (exchanges.every(({ answer }) => answer.headFails)) {
        assert.ok(statuses.every((status) => status === 502 || status === 504), `unusable upstream heads gave ${statuses.join(', ')} (${labels})`);
      }
      await assertGatewayServes(gateway, '/echo/probe');
    });
    t.diagnostic(`seed ${settings.seed}, ${settings.runs} runs`);
    await runFuzz(property, settings, 'upstream-fuzz');
  });
});
