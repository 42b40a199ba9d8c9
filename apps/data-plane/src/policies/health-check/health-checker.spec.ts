import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { HeldResponses, refusedPort, startUpstream, type LoopbackUpstream } from '@gateway/testing';
import type { HealthIndicator } from '@gateway/events';
import { OutboundAddressRule } from '@gateway/outbound-target';
import { HealthChecker, type HealthCheckSettings } from './health-checker';

/*
 * The checker against a real loopback server that holds every check until the test answers it
 * (HeldResponses): a check is only sent after the previous one's verdict, so when the next check
 * arrives the status reflects the answer just given. No sleeps, no timing assertions.
 */

const upstreams: LoopbackUpstream[] = [];
const checkers: HealthChecker[] = [];

after(async () => {
  for (const checker of checkers) checker.stop();
  await Promise.all(upstreams.map((u) => u.close()));
});

async function target(): Promise<{ checks: HeldResponses; url: string }> {
  const checks = new HeldResponses();
  const upstream = await startUpstream({ handler: (_req, res) => checks.push(res) });
  upstreams.push(upstream);
  return { checks, url: `${upstream.origin}/health` };
}

function checker(settings: Partial<HealthCheckSettings> & { url: string }, outbound = new OutboundAddressRule()): { checker: HealthChecker; changes: HealthIndicator[] } {
  const changes: HealthIndicator[] = [];
  const c = new HealthChecker(
    { interval: 5, timeout: 5000, healthyThreshold: 2, unhealthyThreshold: 3, expectedStatus: 200, expectedBody: undefined, ...settings },
    (changed) => changes.push(changed.indicator),
    outbound,
  );
  checkers.push(c);
  return { checker: c, changes };
}

test('Unknown until a verdict: before start, while the first check is pending, and after successes below healthyThreshold', async () => {
  const { checks, url } = await target();
  const { checker: c, changes } = checker({ url });
  assert.deepEqual(c.status(), { status: 'Unknown', url, lastCheck: null, consecutiveSuccesses: 0, consecutiveFailures: 0, latencyMs: null, lastError: null });
  c.start();
  await checks.following();
  assert.equal(c.indicator, 'Unknown', 'the first check is still unanswered');
  await checks.answer(200);
  assert.equal(c.indicator, 'Unknown', 'one success of healthyThreshold 2');
  const status = c.status();
  assert.equal(status.consecutiveSuccesses, 1);
  assert.equal(typeof status.lastCheck, 'string');
  assert.equal(typeof status.latencyMs, 'number');
  await checks.answer(200);
  assert.equal(c.indicator, 'Healthy');
  assert.deepEqual(changes, ['Healthy'], 'onChange only on a change of status');
});

test('Degraded: failures below unhealthyThreshold; a success makes a Degraded target Healthy at once', async () => {
  const { checks, url } = await target();
  const { checker: c, changes } = checker({ url });
  c.start();
  await checks.answer(500);
  assert.equal(c.indicator, 'Degraded', 'a first check that fails: data, but not enough to call it Unhealthy');
  await checks.answer(200);
  assert.equal(c.indicator, 'Healthy', 'Degraded needs one success, not healthyThreshold');
  await checks.answer(500);
  assert.equal(c.indicator, 'Degraded');
  await checks.answer(500);
  assert.equal(c.indicator, 'Degraded', '2 failures of unhealthyThreshold 3');
  assert.deepEqual([c.status().consecutiveFailures, c.status().consecutiveSuccesses, c.status().lastError], [2, 0, 'status 500, expected 200']);
  assert.deepEqual(changes, ['Degraded', 'Healthy', 'Degraded']);
});

test('Unhealthy after unhealthyThreshold consecutive failures; Healthy again only after healthyThreshold consecutive successes', async () => {
  const { checks, url } = await target();
  const { checker: c, changes } = checker({ url });
  c.start();
  await checks.answer(200);
  await checks.answer(200);
  assert.equal(c.indicator, 'Healthy');
  await checks.answer(503);
  await checks.answer(503);
  await checks.answer(200);
  assert.equal(c.indicator, 'Healthy', 'the success broke the run of failures');
  for (let i = 0; i < 3; i += 1) await checks.answer(503);
  assert.equal(c.indicator, 'Unhealthy');
  assert.equal(c.status().consecutiveFailures, 3);
  await checks.answer(200);
  assert.equal(c.indicator, 'Unhealthy', 'one success of healthyThreshold 2');
  await checks.answer(503);
  await checks.answer(200);
  assert.equal(c.indicator, 'Unhealthy', 'the failure started the count again');
  await checks.answer(200);
  assert.equal(c.indicator, 'Healthy');
  assert.deepEqual(changes, ['Healthy', 'Degraded', 'Healthy', 'Degraded', 'Unhealthy', 'Healthy']);
});

test('expectedStatus other than 200: 200 is a failure, the configured status a success', async () => {
  const { checks, url } = await target();
  const { checker: c } = checker({ url, expectedStatus: 204, healthyThreshold: 1, unhealthyThreshold: 1 });
  c.start();
  await checks.answer(200);
  assert.equal(c.indicator, 'Unhealthy');
  assert.equal(c.status().lastError, 'status 200, expected 204');
  await checks.answer(204, '');
  assert.equal(c.indicator, 'Healthy');
  assert.equal(c.status().lastError, null);
});

test('expectedBody: the text must appear in the body of an answer with the expected status', async () => {
  const { checks, url } = await target();
  const { checker: c } = checker({ url, expectedBody: 'ready', healthyThreshold: 1, unhealthyThreshold: 1 });
  c.start();
  await checks.answer(200, '{"status":"starting"}');
  assert.equal(c.indicator, 'Unhealthy');
  assert.equal(c.status().lastError, 'expected body text not found');
  await checks.answer(200, '{"status":"ready"}');
  assert.equal(c.indicator, 'Healthy');
  await checks.answer(500, 'ready');
  assert.equal(c.indicator, 'Unhealthy', 'the text alone is not enough');
});

test('a check that outlasts its timeout is a failure, and checking goes on', async () => {
  const { checks, url } = await target();
  const { checker: c } = checker({ url, timeout: 100, interval: 100, healthyThreshold: 1 });
  c.start();
  await checks.answer(200);
  assert.equal(c.indicator, 'Healthy');
  await checks.next(); // left unanswered
  await checks.following();
  assert.equal(c.indicator, 'Degraded');
  assert.deepEqual([c.status().consecutiveFailures, c.status().lastError], [1, 'timed out after 100 ms']);
  await checks.answer(200);
  assert.equal(c.indicator, 'Healthy');
});

test('a refused connection is a failure naming the error code', async () => {
  const port = await refusedPort();
  const { checker: c, changes } = checker({ url: `http://127.0.0.1:${port}/health`, unhealthyThreshold: 2 });
  c.start();
  for (let i = 0; i < 400 && c.indicator !== 'Unhealthy'; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(c.indicator, 'Unhealthy');
  assert.equal(c.status().lastError, 'ECONNREFUSED');
  assert.deepEqual(changes, ['Degraded', 'Unhealthy']);
});

test('the outbound-target rule: a refused target (literal or resolved name) fails without a request, saying why', async () => {
  // Loopback stands in for the metadata service: a rule refusing it shows the real socket path.
  const refuseLoopback = new OutboundAddressRule([], [{ cidr: '127.0.0.0/8', what: 'loopback (test)' }]);
  for (const host of ['127.0.0.1', 'localhost']) {
    const { url } = await target();
    const upstream = upstreams[upstreams.length - 1] as LoopbackUpstream;
    const { checker: c } = checker({ url: url.replace('127.0.0.1', host), unhealthyThreshold: 2 }, refuseLoopback);
    c.start();
    for (let i = 0; i < 400 && c.indicator !== 'Unhealthy'; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(c.indicator, 'Unhealthy', host);
    assert.match(String(c.status().lastError), /^127\.0\.0\.1 .*is loopback \(test\) \(127\.0\.0\.0\/8\): .*OUTBOUND_ALLOW_CIDRS lists exceptions$/, host);
    assert.equal(upstream.requests.length, 0, `${host}: no request reached the target`);
  }
  const metadata = checker({ url: 'http://169.254.169.254/latest/meta-data/', unhealthyThreshold: 1 });
  metadata.checker.start();
  for (let i = 0; i < 400 && metadata.checker.indicator !== 'Unhealthy'; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.match(String(metadata.checker.status().lastError), /^169\.254\.169\.254 is IPv4 link-local/);
});

test('stop: no check is sent after it, and a pending one is abandoned', async () => {
  const { checks, url } = await target();
  const upstream = upstreams[upstreams.length - 1] as LoopbackUpstream;
  const { checker: c } = checker({ url });
  c.start();
  await checks.answer(200);
  const pending = await checks.next();
  c.stop();
  await new Promise<void>((resolve) => (pending.socket?.destroyed === false ? pending.on('close', () => resolve()) : resolve()));
  const sent = upstream.requests.length;
  const status = c.status();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(upstream.requests.length, sent, 'no further check');
  assert.deepEqual(c.status(), status, 'a stopped checker records nothing');
});
