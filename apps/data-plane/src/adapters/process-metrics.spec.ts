import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as promClient from 'prom-client';
import { registerProcessMetrics } from './process-metrics';
import { Registry } from './prom-client-classes';

/** Each family's name, type and help, in registration order. */
async function families(registry: promClient.Registry): Promise<Array<{ name: string; type: string; help: string }>> {
  return (await registry.getMetricsAsJSON()).map((m) => ({ name: m.name, type: String(m.type), help: m.help }));
}

test("the process metrics are prom-client's default metrics: the same families, types, help and order", async () => {
  const theirs = new promClient.Registry();
  promClient.collectDefaultMetrics({ register: theirs });
  const ours = new Registry();
  registerProcessMetrics(ours);
  const expected = await families(theirs);
  assert.ok(expected.length >= 10, 'prom-client registered its default metrics');
  assert.deepEqual(await families(ours), expected);
  assert.equal((await ours.metrics()).split('\n').filter((l) => l.startsWith('# TYPE')).length, expected.length);
});

test('the process CPU counters count from the process start, user + system = total', async () => {
  const ours = new Registry();
  registerProcessMetrics(ours);
  // Burn some CPU so the counters cannot all be ~0.
  const until = process.cpuUsage().user + 30_000;
  while (process.cpuUsage().user < until);
  const read = async (name: string): Promise<number> => (await ours.getSingleMetric(name)?.get())?.values[0]?.value ?? Number.NaN;
  const user = await read('process_cpu_user_seconds_total');
  const system = await read('process_cpu_system_seconds_total');
  const total = await read('process_cpu_seconds_total');
  const now = process.cpuUsage();
  assert.ok(user >= 0.03 && user <= now.user / 1e6, `user ${user} within this process's ${now.user / 1e6}`);
  assert.ok(system >= 0 && system <= now.system / 1e6);
  assert.ok(Math.abs(user + system - total) < 1e-9, 'total is user + system');
  // A second collect adds only what was spent since the first.
  const user2 = await read('process_cpu_user_seconds_total');
  assert.ok(user2 >= user && user2 <= process.cpuUsage().user / 1e6);
});

test('loading the metrics adapter does not load @opentelemetry/api or the rest of prom-client (a fresh process)', () => {
  const script = `
    require(${JSON.stringify(require.resolve('./prom-metrics.adapter'))});
    const loaded = Object.keys(require.cache);
    process.stdout.write(JSON.stringify({
      otel: loaded.filter((f) => f.includes('@opentelemetry')).length,
      promIndex: loaded.some((f) => /prom-client[\\\\/]index\\.js$/.test(f)),
      promCounter: loaded.some((f) => /prom-client[\\\\/]lib[\\\\/]counter\\.js$/.test(f)),
    }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { otel: number; promIndex: boolean; promCounter: boolean };
  assert.deepEqual(out, { otel: 0, promIndex: false, promCounter: true });
});
