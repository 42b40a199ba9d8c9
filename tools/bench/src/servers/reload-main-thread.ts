// What one full SIGHUP-style reload of 10,000 routes costs the main thread, by part, measured inside
// one process: node reload-main-thread.js <checkout> <reloads>. A data plane's real ConfigReloader,
// its policies and its proxy.yml loader (the real reload worker) on the bench's generated table,
// telemetry on (its default), every route fingerprinted as after start-up; then <reloads> reloads with two routes changed each.
// For each: the main thread's CPU (schedstat) and the heap it allocated (heapUsed grows; run with a
// semi-space large enough that no scavenge falls inside a reload, e.g. --min-semi-space-size=1024
// --max-semi-space-size=1024, for the allocation figures) over the read and parse of the records
// (load), the build and swap (build), and the release and snapshot file (flush). <checkout> is the
// root of a built checkout (this one or a baseline such as /tmp/base-<sha>): the same code measures
// both. Prints one JSON line of medians and each reload's figures.
// Loaded from the checkout's build output at run time (tools may not import an app), like
// route-change-apply.ts; the few members used are typed here.
import { readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, manyRoutesConfig } from '@gateway/testing';
import { mainThreadCpuClock } from './main-thread-cpu';

interface TableRoute {
  readonly id: string;
  readonly route: unknown;
  readonly fingerprint?: string;
}
interface Dispatcher {
  getTable(): { readonly routes: readonly TableRoute[] } | undefined;
}
interface Reloader {
  apply(config: unknown): unknown;
  applyInSlices(...args: unknown[]): Promise<unknown>;
  reload(): Promise<unknown>;
  flush(): Promise<void>;
}

const ROUTES = 10_000;

function load(root: string) {
  /* eslint-disable @typescript-eslint/no-require-imports -- run-time load of a checkout's build output, see above */
  const dist = (file: string): string => path.join(root, 'apps/data-plane/dist', file);
  return {
    ConfigReloader: (require(dist('engine/config-reloader.js')) as { ConfigReloader: new (deps: object) => Reloader }).ConfigReloader,
    RequestDispatcher: (require(dist('engine/request-dispatcher.js')) as { RequestDispatcher: new (...args: unknown[]) => Dispatcher }).RequestDispatcher,
    POLICY_FACTORIES: (require(dist('policies/policy-registry.js')) as { POLICY_FACTORIES: unknown[] }).POLICY_FACTORIES,
    createTestServices: (require(dist('testing/engine-services.fixture.js')) as { createTestServices(parts: object): { services: object; close(): void } }).createTestServices,
    createPinoLogger: (require(dist('adapters/pino-logger.adapter.js')) as { createPinoLogger(level: string): object }).createPinoLogger,
    UpstreamHealthRegistry: (require(dist('engine/upstream-health-registry.js')) as { UpstreamHealthRegistry: new () => object }).UpstreamHealthRegistry,
    DeadlineWheel: (require(dist('engine/deadline-wheel.js')) as { DeadlineWheel: new () => object }).DeadlineWheel,
    UpstreamPools: (require(dist('engine/upstream-target.js')) as { UpstreamPools: new () => { destroy(): void } }).UpstreamPools,
    runInSlices: (require(dist('engine/time-slices.js')) as { runInSlices(steps: Generator<void, unknown, void>): Promise<unknown> }).runInSlices,
    fingerprintSteps: (require(dist('route-fingerprint.js')) as { fingerprintSteps(routes: readonly TableRoute[]): Generator<void, unknown, void> }).fingerprintSteps,
    TelemetryRegistry: (require(dist('policies/telemetry/telemetry-registry.js')) as { TelemetryRegistry: new () => object }).TelemetryRegistry,
    TELEMETRY_TALLIES: (require(dist('policies/telemetry/telemetry-services.js')) as { TELEMETRY_TALLIES: unknown }).TELEMETRY_TALLIES,
    proxyConfig: require(dist('proxy-config-source.js')) as {
      loadProxyConfig(file: string): Promise<{ ok: boolean; config: unknown }>;
      loadProxyConfigForReload(file: string, known: readonly TableRoute[]): Promise<unknown>;
    },
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const heapMb = (): number => process.memoryUsage().heapUsed / 1048576;

async function main(root: string, reloads: number): Promise<void> {
  const m = load(root);
  const cpu = mainThreadCpuClock();
  const dir = makeTempDir('reload-main-thread-');
  const file = path.join(dir.path, 'proxy.yml');
  writeFileSync(file, manyRoutesConfig({ count: ROUTES, upstreamOrigin: 'http://127.0.0.1:9' }).yaml);
  const logger = m.createPinoLogger('silent');
  const health = new m.UpstreamHealthRegistry();
  const { services, close } = m.createTestServices({ logger, health, deadlines: new m.DeadlineWheel() });
  // Telemetry is on by default in a data plane: its tallies are provided as start() provides them.
  (services as { provided: { provide(key: unknown, value: object): unknown } }).provided.provide(m.TELEMETRY_TALLIES, new m.TelemetryRegistry());
  const dispatcher = new m.RequestDispatcher({ onRequest: null, onResponse: null, onComplete: null }, { handle: () => false }, logger);
  const pools = new m.UpstreamPools();
  let part: Record<string, number> = {};
  /** Adds the main thread's CPU and the heap's growth over `run` to `part[name]` (ms) and `part[name + 'Mb']`. */
  const measured = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const [c0, h0] = [cpu.now(), heapMb()];
    const result = await run();
    part[name] = (part[name] ?? 0) + cpu.now() - c0;
    part[`${name}Mb`] = (part[`${name}Mb`] ?? 0) + heapMb() - h0;
    return result;
  };
  const reloader = new m.ConfigReloader({
    load: () => measured('load', () => m.proxyConfig.loadProxyConfigForReload(file, dispatcher.getTable()?.routes ?? [])),
    dispatcher,
    factories: m.POLICY_FACTORIES,
    services,
    health,
    pools,
    snapshotPath: path.join(dir.path, 'routes.snapshot.json'),
    statusPath: path.join(dir.path, 'reload-status.json'),
    overrides: {},
  });
  const applyInSlices = reloader.applyInSlices.bind(reloader);
  reloader.applyInSlices = (...args) => measured('build', () => applyInSlices(...args));
  const flush = reloader.flush.bind(reloader);
  reloader.flush = () => measured('flush', () => flush());
  const first = await m.proxyConfig.loadProxyConfig(file);
  reloader.apply(first.config);
  await flush();
  // As once the gateway listens: every route read at start-up gets the fingerprint the worker gives.
  await m.runInSlices(m.fingerprintSteps(dispatcher.getTable()?.routes ?? []));
  // The files are written first: the probe's own YAML garbage must not be collected inside a reload.
  for (let k = 0; k < reloads; k += 1) {
    writeFileSync(`${file}.${k}`, manyRoutesConfig({ count: ROUTES, upstreamOrigin: 'http://127.0.0.1:9', changed: new Set([(k * 3) % ROUTES, (k * 3 + 1) % ROUTES]) }).yaml);
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  const rows: Array<Record<string, number>> = [];
  for (let k = 0; k < reloads; k += 1) {
    renameSync(`${file}.${k}`, file);
    part = {};
    const c0 = cpu.now();
    await reloader.reload();
    rows.push({ ...part, total: cpu.now() - c0 });
  }
  const keys = ['total', 'load', 'build', 'flush', 'loadMb', 'buildMb', 'flushMb'];
  const medians = Object.fromEntries(keys.map((key) => [key, Number(median(rows.map((row) => row[key] ?? 0)).toFixed(2))]));
  console.log(JSON.stringify({ root, routes: ROUTES, reloads, perThread: cpu.perThread, medians, rows: rows.map((row) => keys.map((key) => Number((row[key] ?? 0).toFixed(2)))) }));
  pools.destroy();
  close();
  dir.remove();
  // The reload worker (unref'd) and the health registry's timers end with the process.
  process.exit(0);
}

const [root, reloads] = process.argv.slice(2);
if (root === undefined || readdirSync(root).length === 0) {
  console.error('usage: node reload-main-thread.js <built checkout> [reloads]');
  process.exit(2);
}
void main(path.resolve(root), Number(reloads ?? 12));
