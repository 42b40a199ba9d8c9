import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream, startTextUpstream } from '@gateway/testing';

const configFor = (routes: string) => `version: "1.0.0"\nroutes:\n${routes}`;

function reloadCount(metrics: string, result: 'success' | 'failure'): number {
  const match = new RegExp(`^gateway_config_reloads_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(metrics);
  return match ? Number(match[1]) : Number.NaN;
}

describe('hot reload on SIGHUP', () => {
  let blue: LoopbackUpstream;
  let green: LoopbackUpstream;
  let slow: LoopbackUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    blue = await startTextUpstream('blue');
    green = await startTextUpstream('green');
    slow = await startUpstream({ handler: (_q, s) => setTimeout(() => s.end('slow-old'), 800) });
    gateway = await startGatewayProcess({
      config: configFor(`  - { path: /app/*, upstream: "${blue.origin}" }\n  - { path: /slow, upstream: "${slow.origin}" }\n`),
    });
  });

  after(async () => {
    await gateway?.stop();
    await Promise.all([blue?.close(), green?.close(), slow?.close()]);
  });

  const metrics = async () => (await request(`${gateway.url}/metrics`)).text;
  const reloaded = async (result: 'success' | 'failure', expected: number) => {
    for (let i = 0; i < 100; i += 1) {
      if (reloadCount(await metrics(), result) >= expected) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`no ${result} reload counted`);
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
    const inFlight = request(`${gateway.url}/slow`);
    await new Promise((r) => setTimeout(r, 200));
    const successes = reloadCount(await metrics(), 'success');
    gateway.writeConfig(configFor(`  - { path: /app/*, upstream: "${green.origin}" }\n`));
    gateway.signal('SIGHUP');
    await reloaded('success', successes + 1);
    const res = await inFlight;
    assert.equal(res.status, 200);
    assert.equal(res.text, 'slow-old');
    assert.equal((await request(`${gateway.url}/slow`)).status, 404);
  });

  test('SIGHUP while a load loop runs: zero failed requests', async () => {
    gateway.writeConfig(configFor(`  - { path: /app/*, upstream: "${blue.origin}" }\n`));
    gateway.signal('SIGHUP');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    let ok = 0;
    const failures: string[] = [];
    let running = true;
    const worker = async () => {
      while (running) {
        try {
          const res = await request(`${gateway.url}/app/load`, { agent });
          if (res.status === 200 && (res.text === 'blue' || res.text === 'green')) ok += 1;
          else failures.push(`${res.status} ${res.text}`);
        } catch (error) {
          failures.push(String(error));
        }
      }
    };
    const workers = Array.from({ length: 16 }, worker);
    const successes = reloadCount(await metrics(), 'success');
    for (let i = 0; i < 20; i += 1) {
      const target = i % 2 === 0 ? green : blue;
      gateway.writeConfig(configFor(`  - { path: /app/*, upstream: "${target.origin}" }\n  - { path: /extra${i}, upstream: "${target.origin}" }\n`));
      gateway.signal('SIGHUP');
      await new Promise((r) => setTimeout(r, 60));
    }
    await reloaded('success', successes + 1);
    running = false;
    await Promise.all(workers);
    agent.destroy();
    assert.deepEqual(failures, []);
    assert.ok(ok > 100, `only ${ok} requests completed`);
  });
});
