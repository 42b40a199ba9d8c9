import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { HeldResponses, request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream, startTextUpstream } from '@gateway/testing';

const configFor = (routes: string) => `version: "1.0.0"\nroutes:\n${routes}`;

function reloadCount(metrics: string, result: 'success' | 'failure'): number {
  const match = new RegExp(`^gateway_config_reloads_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(metrics);
  return match ? Number(match[1]) : Number.NaN;
}

describe('hot reload on SIGHUP', () => {
  let blue: LoopbackUpstream;
  let green: LoopbackUpstream;
  let slow: LoopbackUpstream;
  /** Requests to /slow, held until the test answers them (after the reload it waits for). */
  const slowRequests = new HeldResponses();
  let gateway: GatewayProcess;

  before(async () => {
    blue = await startTextUpstream('blue');
    green = await startTextUpstream('green');
    slow = await startUpstream({ handler: (_q, s) => slowRequests.push(s) });
    gateway = await startGatewayProcess({
      config: configFor(`  - { path: /app/*, upstream: "${blue.origin}" }\n  - { path: /slow, upstream: "${slow.origin}" }\n`),
    });
  });

  after(async () => {
    await gateway?.stop();
    await Promise.all([blue?.close(), green?.close(), slow?.close()]);
  });

  const metrics = async () => (await request(`${gateway.url}/metrics`)).text;
  /** Waits (bounded) until the `result` counter reaches `expected` (a reload's thread start alone can take a second on a loaded machine). */
  const reloaded = async (result: 'success' | 'failure', expected: number) => {
    const deadline = Date.now() + 20_000;
    while (reloadCount(await metrics(), result) < expected) {
      if (Date.now() > deadline) assert.fail(`no ${result} reload counted within 20 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  test('a valid file is applied: changed upstreams, new and removed routes', async () => {
    assert.equal((await request(`${gateway.url}/app/x`)).text, 'blue');
    gateway.writeConfig(configFor(`  - { path: /app/*, upstream: "${green.origin}" }\n  - { path: /new, upstream: "${blue.origin}" }\n  - { path: /slow, upstream: "${slow.origin}" }\n`));
    gateway.signal('SIGHUP');
    await reloaded('success', 1);
    assert.equal((await request(`${gateway.url}/app/x`)).text, 'green');
    assert.equal((await request(`${gateway.url}/new`)).text, 'blue');
    const snapshot = JSON.parse(readFileSync(path.join(gateway.dataDir, 'routes.snapshot.json'), 'utf8')) as { routes: Array<{ path: string }> };
    assert.deepEqual(snapshot.routes.map((r) => r.path).sort(), ['/app/*', '/new', '/slow']);
  });

  test('an invalid file keeps the running table, logs why and counts a failure', async () => {
    const failuresBefore = reloadCount(await metrics(), 'failure');
    gateway.writeConfig(configFor(`  - { path: "no-slash", upstream: "http://" }\n`));
    gateway.signal('SIGHUP');
    await reloaded('failure', failuresBefore + 1);
    assert.equal((await request(`${gateway.url}/app/x`)).text, 'green');
    const line = await gateway.waitForOutput('configuration reload rejected');
    assert.match(line, /Invalid path format/);
    assert.match(line, /Invalid URL/);
    const status = JSON.parse(readFileSync(path.join(gateway.dataDir, 'reload-status.json'), 'utf8')) as { ok: boolean };
    assert.equal(status.ok, false);
  });

  test('a request in flight finishes on the table it started with', async () => {
    const inFlight = request(`${gateway.url}/slow`, { timeoutMs: 60_000 });
    // At the upstream, so routed on the old table; answered only once the new table is in place.
    const held = await slowRequests.next();
    const successes = reloadCount(await metrics(), 'success');
    gateway.writeConfig(configFor(`  - { path: /app/*, upstream: "${green.origin}" }\n`));
    gateway.signal('SIGHUP');
    await reloaded('success', successes + 1);
    held.end('slow-old');
    const res = await inFlight;
    assert.equal(res.status, 200);
    assert.equal(res.text, 'slow-old');
    assert.equal((await request(`${gateway.url}/slow`)).status, 404);
  });

  test('SIGHUP while a load loop runs: zero failed requests', { timeout: 180_000 }, async () => {
    const RELOADS = 12;
    const routeTo = (target: LoopbackUpstream, i: number) =>
      configFor(`  - { path: /app/*, upstream: "${target.origin}" }\n  - { path: /extra${i}, upstream: "${target.origin}" }\n`);
    /** Waits (bounded) until the success counter reaches `expected`; fails at once if a reload is rejected. */
    const confirmReload = async (expected: number, failureBaseline: number, what: string) => {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const text = await metrics();
        if (reloadCount(text, 'failure') > failureBaseline) assert.fail(`${what} was rejected; output:\n${gateway.output.slice(-5).join('\n')}`);
        if (reloadCount(text, 'success') >= expected) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.fail(`${what} was not counted as a successful reload within 20 s`);
    };

    // A first reload, confirmed before any load starts: blue serves /app/*.
    const failures0 = reloadCount(await metrics(), 'failure');
    const start = reloadCount(await metrics(), 'success');
    gateway.writeConfig(routeTo(blue, 0));
    gateway.signal('SIGHUP');
    await confirmReload(start + 1, failures0, 'the reload before the load loop');
    assert.equal((await request(`${gateway.url}/app/x`)).text, 'blue');
    const baseline = reloadCount(await metrics(), 'success');

    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const seen = { blue: 0, green: 0 };
    let ok = 0;
    const failures: string[] = [];
    let running = true;
    const worker = async () => {
      while (running) {
        try {
          const res = await request(`${gateway.url}/app/load`, { agent, timeoutMs: 5000 });
          if (res.status === 200 && (res.text === 'blue' || res.text === 'green')) {
            ok += 1;
            seen[res.text] += 1;
          } else failures.push(`${res.status} ${res.text}`);
        } catch (error) {
          failures.push(String(error));
        }
      }
    };
    const workers = Array.from({ length: 16 }, worker);
    try {
      // Let the loop get going before the first reload under load.
      for (let i = 0; i < 100 && ok < 50; i += 1) await new Promise((r) => setTimeout(r, 10));
      for (let i = 1; i <= RELOADS; i += 1) {
        const target = i % 2 === 1 ? 'green' : 'blue';
        gateway.writeConfig(routeTo(target === 'green' ? green : blue, i));
        gateway.signal('SIGHUP');
        await confirmReload(baseline + i, failures0, `reload ${i} (to ${target}) under load`);
        // The new table serves the loop before the next file is written.
        const servedBefore = seen[target];
        const answered = Date.now() + 10_000;
        while (seen[target] === servedBefore && Date.now() < answered) await new Promise((r) => setTimeout(r, 10));
        assert.ok(seen[target] > servedBefore, `no '${target}' answer within 10 s after reload ${i}`);
      }
    } finally {
      running = false;
      await Promise.all(workers);
      agent.destroy();
    }
    const successes = reloadCount(await metrics(), 'success');
    assert.deepEqual(failures, []);
    assert.ok(successes - baseline >= 10, `only ${successes - baseline} reloads counted during the load`);
    assert.ok(seen.blue > 0 && seen.green > 0, `answers: ${JSON.stringify(seen)}`);
    assert.ok(ok >= 200, `only ${ok} requests completed`);
  });
});
