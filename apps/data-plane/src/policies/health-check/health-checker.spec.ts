import { after, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { HeldResponses, refusedPort, startUpstream, withTimeout, type LoopbackUpstream } from '@gateway/testing';
import type { HealthIndicator } from '@gateway/events';
import { OutboundAddressRule } from '@gateway/outbound-target';
import { HealthChecker, type HealthCheckSettings } from './health-checker';

/*
 * The checker against a real loopback server that holds every check until the test answers it
 * (HeldResponses): a check is only sent after the previous one's verdict, so when the next check
 * arrives the status reflects the answer just given. No sleeps, no timing assertions.
 * Each target has a path of its own and holds and counts only requests to it: a port is reused once
 * freed, and a checker still checking a refused port (in this process or in another test file running
 * beside it) reaches whichever server gets that port next; its requests must not pass for this one's.
 */

const upstreams: LoopbackUpstream[] = [];
const checkers: HealthChecker[] = [];

after(async () => {
  for (const checker of checkers) checker.stop();
  await Promise.all(upstreams.map((u) => u.close()));
});

interface Target {
  readonly checks: HeldResponses;
  readonly url: string;
  /** Checks this target received (at its own path). */
  sent(): number;
}

async function target(): Promise<Target> {
  const checks = new HeldResponses();
  const path = `/health/${randomUUID()}`;
  const upstream = await startUpstream({ handler: (req, res) => (req.url === path ? checks.push(res) : res.writeHead(404).end()) });
  upstreams.push(upstream);
  return { checks, url: `${upstream.origin}${path}`, sent: () => upstream.requests.filter((r) => r.url === path).length };
}

interface Watched {
  readonly checker: HealthChecker;
  readonly changes: HealthIndicator[];
  /** Resolves once the checker's status is `indicator` (now or at a change); fails after 10 s naming what it saw. */
  becomes(indicator: HealthIndicator): Promise<void>;
}

/** A checker stopped when its test ends (one left checking a refused port would reach the next server there). */
function checker(t: TestContext, settings: Partial<HealthCheckSettings> & { url: string }, outbound = new OutboundAddressRule()): Watched {
  const changes: HealthIndicator[] = [];
  const onChange = new Set<() => void>();
  const c = new HealthChecker(
    { interval: 5, timeout: 5000, healthyThreshold: 2, unhealthyThreshold: 3, expectedStatus: 200, expectedBody: undefined, ...settings },
    (changed) => {
      changes.push(changed.indicator);
      for (const listener of onChange) listener();
    },
    outbound,
  );
  checkers.push(c);
  t.after(() => c.stop());
  const becomes = (indicator: HealthIndicator): Promise<void> =>
    new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        onChange.delete(listener);
      };
      const listener = (): void => {
        if (c.indicator !== indicator) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${settings.url}: not ${indicator} after 10 s; changes ${JSON.stringify(changes)}, last error ${String(c.status().lastError)}`));
      }, 10_000);
      onChange.add(listener);
      listener();
    });
  return { checker: c, changes, becomes };
}

/** Resolves when the connection of a held check is closed (bounded: fails with `message`). */
function closed(res: ServerResponse, message: string): Promise<void> {
  if (res.socket === null || res.socket.destroyed) return Promise.resolve();
  return withTimeout(new Promise((resolve) => res.once('close', () => resolve())), 10_000, message);
}

test('Unknown until a verdict: before start, while the first check is pending, and after successes below healthyThreshold', async (t) => {
  const { checks, url } = await target();
  const { checker: c, changes } = checker(t, { url });
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

test('Degraded: failures below unhealthyThreshold; a success makes a Degraded target Healthy at once', async (t) => {
  const { checks, url } = await target();
  const { checker: c, changes } = checker(t, { url });
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

test('Unhealthy after unhealthyThreshold consecutive failures; Healthy again only after healthyThreshold consecutive successes', async (t) => {
  const { checks, url } = await target();
  const { checker: c, changes } = checker(t, { url });
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

test('expectedStatus other than 200: 200 is a failure, the configured status a success', async (t) => {
  const { checks, url } = await target();
  const { checker: c } = checker(t, { url, expectedStatus: 204, healthyThreshold: 1, unhealthyThreshold: 1 });
  c.start();
  await checks.answer(200);
  assert.equal(c.indicator, 'Unhealthy');
  assert.equal(c.status().lastError, 'status 200, expected 204');
  await checks.answer(204, '');
  assert.equal(c.indicator, 'Healthy');
  assert.equal(c.status().lastError, null);
});

test('expectedBody: the text must appear in the body of an answer with the expected status', async (t) => {
  const { checks, url } = await target();
  const { checker: c } = checker(t, { url, expectedBody: 'ready', healthyThreshold: 1, unhealthyThreshold: 1 });
  c.start();
  await checks.answer(200, '{"status":"starting"}');
  assert.equal(c.indicator, 'Unhealthy');
  assert.equal(c.status().lastError, 'expected body text not found');
  await checks.answer(200, '{"status":"ready"}');
  assert.equal(c.indicator, 'Healthy');
  await checks.answer(500, 'ready');
  assert.equal(c.indicator, 'Unhealthy', 'the text alone is not enough');
});

test('a check that outlasts its timeout is a failure, and checking goes on', async (t) => {
  const { checks, url } = await target();
  const { checker: c } = checker(t, { url, timeout: 100, interval: 100, healthyThreshold: 1 });
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

test('a refused connection is a failure naming the error code', async (t) => {
  const port = await refusedPort();
  const { checker: c, changes, becomes } = checker(t, { url: `http://127.0.0.1:${port}/health`, unhealthyThreshold: 2 });
  c.start();
  await becomes('Unhealthy');
  assert.equal(c.status().lastError, 'ECONNREFUSED');
  assert.deepEqual(changes, ['Degraded', 'Unhealthy']);
});

test('the outbound-target rule: a refused target (literal or resolved name) fails without a request, saying why', async (t) => {
  // Loopback stands in for the metadata service: a rule refusing it shows the real socket path.
  const refuseLoopback = new OutboundAddressRule([], [{ cidr: '127.0.0.0/8', what: 'loopback (test)' }]);
  for (const host of ['127.0.0.1', 'localhost']) {
    const { url, sent } = await target();
    const { checker: c, becomes } = checker(t, { url: url.replace('127.0.0.1', host), unhealthyThreshold: 2 }, refuseLoopback);
    c.start();
    await becomes('Unhealthy');
    assert.match(String(c.status().lastError), /^127\.0\.0\.1 .*is loopback \(test\) \(127\.0\.0\.0\/8\): .*OUTBOUND_ALLOW_CIDRS lists exceptions$/, host);
    assert.equal(sent(), 0, `${host}: no request reached the target`);
  }
  const metadata = checker(t, { url: 'http://169.254.169.254/latest/meta-data/', unhealthyThreshold: 1 });
  metadata.checker.start();
  await metadata.becomes('Unhealthy');
  assert.match(String(metadata.checker.status().lastError), /^169\.254\.169\.254 is IPv4 link-local/);
});

test('stop: no check is sent after it, and a pending one is abandoned', async (t) => {
  const { checks, url, sent } = await target();
  // A check only the abort can end: its connection closing is stop() abandoning it, not a timeout.
  const { checker: c } = checker(t, { url, timeout: 600_000 });
  c.start();
  await checks.answer(200);
  const pending = await checks.next();
  const status = c.status();
  c.stop();
  await closed(pending, 'stop() did not abandon the pending check');
  assert.equal(sent(), 2, 'the answered check and the abandoned one');
  // A running checker with the same interval, started after stop(): when it has made three checks,
  // a timer stop() left behind (due earlier, so fired earlier) would have sent one.
  const witness = await target();
  checker(t, { url: witness.url }).checker.start();
  for (let i = 0; i < 3; i += 1) await witness.checks.answer(200);
  assert.equal(sent(), 2, 'no check after stop()');
  assert.deepEqual(c.status(), status, 'a stopped checker records nothing, not even the abandoned check');
});
