// Issue 19's "one route changed through the control plane is applied in under 5 ms at 10,000
// routes", measured inside one process: node route-change-apply.js <routes> <changes>.
// A ControlPlaneFollower (the data plane's own, with its real ConfigReloader, RequestDispatcher and
// policies) follows an in-process bus: it takes a snapshot of <routes> generated routes, then
// <changes> `upserted` messages, each changing one route's upstream. Timed: from the message
// reaching the follower to the new table being the one requests match against (the bus transport
// is not part of "applied"). Also timed, as the baseline: compiling the whole table from scratch,
// which is what every change cost before. Prints one JSON line.
// Loaded from the data plane's build output at run time (tools may not import an app), like
// lean-forwarder.ts; the few members used are typed here.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import path from 'node:path';
import { InProcessBus } from '@gateway/events';
import { PROXY_DEFAULTS, type ProxyConfig, type Route } from '@gateway/route-model';
import { makeTempDir, manyRoutesConfig, REPO_ROOT } from '@gateway/testing';
import { mainThreadCpuClock } from './main-thread-cpu';

interface Table {
  match(method: string, path: string): { route: Route } | undefined;
}
interface Dispatcher {
  getTable(): Table | undefined;
}
interface Follower {
  start(): Promise<void>;
  close(): Promise<void>;
  onMessage(raw: unknown): void;
}
interface Reloader {
  flush(): Promise<void>;
}

/* eslint-disable @typescript-eslint/no-require-imports -- run-time load of an app's build output, see above */
const dist = (file: string): string => path.join(REPO_ROOT, 'apps/data-plane/dist', file);
const { ConfigReloader } = require(dist('engine/config-reloader.js')) as { ConfigReloader: new (deps: object) => Reloader };
const { RequestDispatcher } = require(dist('engine/request-dispatcher.js')) as { RequestDispatcher: new (...args: unknown[]) => Dispatcher };
const { RouteTable } = require(dist('engine/route-table.js')) as { RouteTable: { compile(config: ProxyConfig, ...rest: unknown[]): Table } };
const { ControlPlaneFollower } = require(dist('cluster/control-plane-follower.js')) as { ControlPlaneFollower: new (deps: object) => Follower };
const { POLICY_FACTORIES } = require(dist('policies/policy-registry.js')) as { POLICY_FACTORIES: unknown[] };
const { createTestServices } = require(dist('testing/engine-services.fixture.js')) as { createTestServices(parts: object): { services: object; close(): void } };
const { createPinoLogger } = require(dist('adapters/pino-logger.adapter.js')) as { createPinoLogger(level: string): object };
const { UpstreamHealthRegistry } = require(dist('engine/upstream-health-registry.js')) as { UpstreamHealthRegistry: new () => object };
const { DeadlineWheel } = require(dist('engine/deadline-wheel.js')) as { DeadlineWheel: new () => object };
const { OpenStreams } = require(dist('engine/open-streams.js')) as { OpenStreams: new () => object };
const { OpenWebSockets } = require(dist('engine/open-websockets.js')) as { OpenWebSockets: new () => object };
const { UpstreamPools } = require(dist('engine/upstream-target.js')) as { UpstreamPools: new () => { destroy(): void } };
const { parseProxyConfigText } = require(path.join(REPO_ROOT, 'libs/config-file/dist/index.js')) as {
  parseProxyConfigText(text: string): { ok: true; config: ProxyConfig } | { ok: false; errors: unknown[] };
};
/* eslint-enable @typescript-eslint/no-require-imports */

function summary(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
  return { p50: at(50), p99: at(99), max: sorted[sorted.length - 1] as number };
}

async function main(routeCount: number, changes: number): Promise<void> {
  const parsed = parseProxyConfigText(manyRoutesConfig({ count: routeCount, upstreamOrigin: 'http://127.0.0.1:9' }).yaml);
  if (!parsed.ok) throw new Error(`generated configuration refused: ${JSON.stringify(parsed.errors).slice(0, 500)}`);
  const routes = parsed.config.routes;
  const dir = makeTempDir('route-change-apply-');
  const logger = createPinoLogger('silent');
  const health = new UpstreamHealthRegistry();
  const { services, close } = createTestServices({ logger, health, deadlines: new DeadlineWheel() });
  // With the registries of open streams and WebSockets, as the data plane has (a swap tells the latter).
  const dispatcher = new RequestDispatcher({ onRequest: null, onResponse: null, onComplete: null }, { handle: () => false }, logger, new OpenStreams(), new OpenWebSockets());
  const pools = new UpstreamPools();
  const reloader = new ConfigReloader({ load: async () => ({ ok: false, errors: [] }), dispatcher, factories: POLICY_FACTORIES, services, health, pools, snapshotPath: path.join(dir.path, 'routes.snapshot.json'), overrides: {} });
  const settings = { ...PROXY_DEFAULTS, trustedProxies: [] };
  const follower = new ControlPlaneFollower({
    bus: new InProcessBus(),
    fetchSnapshot: async () => ({ version: 1, createdAt: new Date().toISOString(), routes, upstreams: [] }),
    reloader,
    settings,
    factories: POLICY_FACTORIES,
    logger,
    snapshotPath: path.join(dir.path, 'routes.snapshot.json'),
  });
  await follower.start();
  await reloader.flush();

  const applyMs: number[] = [];
  // CPU time beside wall time: on a shared machine the wall clock also counts other processes' turns.
  const applyCpuMs: number[] = [];
  const cpuClock = mainThreadCpuClock();
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  let afterMaxMs = 0;
  // The work after a swap, in CPU: the most main-thread CPU between two turns of a 1 ms timer.
  let afterMaxCpuMs = 0;
  let lastTurnCpu = cpuClock.now();
  let longestGapCpu = 0;
  const turns = setInterval(() => {
    const now = cpuClock.now();
    longestGapCpu = Math.max(longestGapCpu, now - lastTurnCpu);
    lastTurnCpu = now;
  }, 1);
  for (let k = 1; k <= changes; k += 1) {
    const index = (k * 37) % routes.length;
    const route = { ...(routes[index] as Route), upstream: `http://127.0.0.1:9/r/${index}/v${k}` };
    const cpu = cpuClock.now();
    const started = performance.now();
    follower.onMessage({ kind: 'upserted', version: 1 + k, route });
    applyMs.push(performance.now() - started);
    applyCpuMs.push(cpuClock.now() - cpu);
    const served = dispatcher.getTable()?.match('GET', route.path.replace(/\*/g, 'x'))?.route.upstream;
    if (served !== route.upstream) throw new Error(`change ${k} not applied: route ${route.id} serves ${String(served)}`);
    // What follows the swap (the snapshot file, releasing state) runs in later tasks: its longest
    // task is reported apart, as the event-loop delay it adds.
    lag.reset();
    lastTurnCpu = cpuClock.now();
    longestGapCpu = 0;
    await reloader.flush();
    await new Promise((resolve) => setImmediate(resolve));
    afterMaxMs = Math.max(afterMaxMs, lag.max / 1e6);
    afterMaxCpuMs = Math.max(afterMaxCpuMs, longestGapCpu);
  }
  clearInterval(turns);
  lag.disable();

  const fullMs: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const started = performance.now();
    RouteTable.compile({ ...parsed.config, proxy: settings }, POLICY_FACTORIES, { settings, services }, pools);
    fullMs.push(performance.now() - started);
  }
  await follower.close();
  pools.destroy();
  close();
  dir.remove();
  process.stdout.write(`${JSON.stringify({ routes: routeCount, changes, applyMs: summary(applyMs), applyCpuMs: summary(applyCpuMs), afterSwapMaxTaskMs: afterMaxMs, afterSwapMaxStepCpuMs: afterMaxCpuMs, threadCpu: cpuClock.perThread, fullCompileMs: summary(fullMs) })}\n`);
}

main(Number(process.argv[2] ?? 10_000), Number(process.argv[3] ?? 200)).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`route-change-apply: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
