import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { makeTempDir, manyRoutesConfig, manyRoutesRoute } from '@gateway/testing';
import { startDataPlane, type GatewayServer } from '../harness/gateway';
import { runLoad, type LoadMeasurement } from '../harness/load';
import { MAIN_THREAD_STEPS_ENV, MAIN_THREAD_STEPS_FLAGS, mainThreadBetween, readMainThreadWindows, type MainThreadSummary } from '../harness/main-thread-steps';
import { baselineCommand } from '../harness/baseline-build';
import { startBenchServer } from '../harness/processes';
import { formatNumber, markdownTable } from '../harness/report';
import { median } from '../harness/stats';
import type { GoalCheck, HarnessContext, JsonValue, Scenario, ScenarioResult } from '../harness/types';

const ROUTES = 10_000;
/** A phase lasts at least this long, so several full reloads of 10,000 routes fall inside it. */
const MIN_PHASE_SECONDS = 10;
const GOAL_P99_BELOW_MS = 20;
const GOAL_APPLY_BELOW_MS = 5;
/** The brief's bound for any one main-thread step of a reload (CPU), so requests never wait behind one for long. */
const GOAL_STEP_BELOW_MS = 5;
/** Full reloads timed with no traffic: the main thread does nothing else, so its longest step is the reload's. */
const QUIET_RELOADS = 3;
/** After a reload's answer, its snapshot file and the release of old state still run: waited for before the next. */
const AFTER_RELOAD_MS = 2000;
/** Longer than the main-thread monitor's 250 ms window. */
const SCRAPE_SETTLE_MS = 300;
/** A reload not answered (reload-status.json) within this long fails the scenario. */
const RELOAD_GIVE_UP_MS = 180_000;
const ROUTE_CHANGES = 200;
/**
 * Runs another build's data plane (its apps/cli/bin/gateway.js) under this harness: the phases
 * take one process each, so a baseline is measured by alternating runs with and without it,
 * with the same measuring code on both sides.
 */
const RELOAD_BIN_ENV = 'BENCH_RELOAD_BIN';

type Phase = 'steady' | 'reloading';

interface PhaseResult {
  readonly load: LoadMeasurement;
  /** The data plane's own event-loop delay over the phase (prom-client's histogram, reset by the scrape before it). */
  readonly lagP99Ms: number | undefined;
  readonly lagMaxMs: number | undefined;
  /** SIGHUP to reload-status.json answering, for each reload that ran during the phase. */
  readonly reloadMs: number[];
  /** The data plane's main thread over the phase (servers/main-thread-steps.ts). */
  readonly mainThread: MainThreadSummary | undefined;
  /** How long the phase's load ran, s. */
  readonly seconds: number;
}

/** One full reload with no traffic: its answer time and what it cost the main thread. */
interface QuietReload {
  readonly reloadMs: number;
  readonly mainThread: MainThreadSummary | undefined;
  /**
   * The main thread's CPU over the reload's window less what it spends idle over as long (the
   * monitor's own 1 ms timer, ~25 ms of CPU a second, and the gateway's timers): the reload's own cost.
   */
  readonly netCpuMs: number | undefined;
}

/** The main thread's CPU a second with nothing to do, measured over this long after the quiet reloads... */
const IDLE_FLOOR_MS = 3000;
/** ...this long after the last of them. */
const IDLE_SETTLE_MS = 9000;

/** The main thread's CPU over a phase, a second (the monitor's own ~25-40 ms a second included). */
function cpuPerSecond(result: PhaseResult): number | undefined {
  return result.mainThread === undefined ? undefined : result.mainThread.cpuMs / result.seconds;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function scrape(origin: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${origin}/metrics`, { agent: false, timeout: 30_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text));
    });
    req.on('timeout', () => req.destroy(new Error('GET /metrics timed out')));
    req.on('error', reject);
  });
}

function gaugeMs(metrics: string, name: string): number | undefined {
  const match = new RegExp(`^${name} ([0-9.eE+-]+)$`, 'm').exec(metrics);
  return match ? Number(match[1]) * 1000 : undefined;
}

function statusWrittenAt(dataDir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(path.join(dataDir, 'reload-status.json'), 'utf8')) as { at?: string }).at;
  } catch {
    return undefined;
  }
}

/** Rewrites proxy.yml (atomically) with `changed` routes moved, SIGHUPs, waits for the answer; returns ms. */
async function reloadOnce(gateway: GatewayServer, upstreamOrigin: string, changed: ReadonlySet<number>): Promise<number> {
  const before = statusWrittenAt(gateway.dataDir);
  const temp = `${gateway.configPath}.next`;
  writeFileSync(temp, manyRoutesConfig({ count: ROUTES, upstreamOrigin, changed }).yaml);
  renameSync(temp, gateway.configPath);
  const started = process.hrtime.bigint();
  process.kill(gateway.pid, 'SIGHUP');
  const deadline = Date.now() + RELOAD_GIVE_UP_MS;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const at = statusWrittenAt(gateway.dataDir);
    if (at !== undefined && at !== before) {
      const status = JSON.parse(readFileSync(path.join(gateway.dataDir, 'reload-status.json'), 'utf8')) as { ok: boolean };
      if (!status.ok) throw new Error(`the reload was rejected: ${readFileSync(path.join(gateway.dataDir, 'reload-status.json'), 'utf8').slice(0, 500)}`);
      return Number(process.hrtime.bigint() - started) / 1e6;
    }
  }
  throw new Error(`no reload answer within ${RELOAD_GIVE_UP_MS} ms`);
}

/** Reloads with a few routes changed (the rest reused), `index` picking which. */
const changedRoutes = (index: number): Set<number> => new Set([index % ROUTES, (index + 1) % ROUTES]);

async function quietReloads(gateway: GatewayServer, upstreamOrigin: string, stepsFile: string): Promise<{ reloads: QuietReload[]; idleCpuPerSecond: number | undefined }> {
  const measured: Array<{ reloadMs: number; from: number; to: number }> = [];
  for (let k = 0; k < QUIET_RELOADS; k += 1) {
    await sleep(1000);
    const from = Date.now();
    const reloadMs = await reloadOnce(gateway, upstreamOrigin, changedRoutes(5000 + k * 3));
    await sleep(AFTER_RELOAD_MS);
    measured.push({ reloadMs, from, to: Date.now() });
  }
  // The floor is taken after the reloads, once what they and the warm-up left has run (the idle
  // young-generation trim fires 2 s and 8 s into idleness, the reload worker ends 5 s after its last answer).
  await sleep(IDLE_SETTLE_MS);
  const idleFrom = Date.now();
  await sleep(IDLE_FLOOR_MS);
  const idleTo = Date.now();
  const windows = readMainThreadWindows(stepsFile);
  const idle = mainThreadBetween(windows, idleFrom, idleTo);
  const idleCpuPerSecond = idle === undefined ? undefined : (idle.cpuMs * 1000) / (idleTo - idleFrom);
  const reloads = measured.map(({ reloadMs, from, to }) => {
    const mainThread = mainThreadBetween(windows, from, to);
    const netCpuMs = mainThread === undefined || idleCpuPerSecond === undefined ? undefined : mainThread.cpuMs - (idleCpuPerSecond * (to - from)) / 1000;
    return { reloadMs, mainThread, netCpuMs };
  });
  return { reloads, idleCpuPerSecond };
}

async function runPhase(ctx: HarnessContext, phase: Phase, gateway: GatewayServer, upstreamOrigin: string, seconds: number, round: number, stepsFile: string): Promise<PhaseResult> {
  await scrape(gateway.origin);
  // The scrape (series of 10,000 routes) is one long step of its own, not the phase's: the
  // monitor's window that holds it ends before `from` (see mainThreadBetween).
  await sleep(SCRAPE_SETTLE_MS);
  const from = Date.now();
  let loading = true;
  const reloadMs: number[] = [];
  const reloads = (async () => {
    if (phase !== 'reloading') return;
    for (let k = 0; loading; k += 1) {
      // A few routes change each time (the rest are reused); the table is re-read whole.
      reloadMs.push(await reloadOnce(gateway, upstreamOrigin, changedRoutes(round * 100 + k * 3)));
    }
  })();
  let load: LoadMeasurement;
  try {
    load = await runLoad({
      origin: gateway.origin,
      request: {
        path: manyRoutesRoute(0).requestPath,
        // Every request another route, spread over the whole table.
        vary: (sequence) => ({ path: manyRoutesRoute((sequence * 7919) % ROUTES).requestPath }),
      },
      connections: ctx.options.connections,
      durationSeconds: seconds,
      observe: { proxy: gateway.pid },
    });
  } finally {
    loading = false;
  }
  const to = Date.now();
  const metrics = await scrape(gateway.origin);
  await reloads;
  return {
    load,
    lagP99Ms: gaugeMs(metrics, 'nodejs_eventloop_lag_p99_seconds'),
    lagMaxMs: gaugeMs(metrics, 'nodejs_eventloop_lag_max_seconds'),
    reloadMs,
    mainThread: mainThreadBetween(readMainThreadWindows(stepsFile), from, to),
    seconds: (to - from) / 1000,
  };
}

interface ApplyResult {
  routes: number;
  changes: number;
  applyMs: { p50: number; p99: number; max: number };
  applyCpuMs: { p50: number; p99: number; max: number };
  afterSwapMaxTaskMs: number;
  /** The same in main-thread CPU (the most CPU between two turns of a 1 ms timer). */
  afterSwapMaxStepCpuMs: number;
  /** Whether the CPU figures are the main thread's alone (/proc), or the process's. */
  threadCpu: boolean;
  fullCompileMs: { p50: number; p99: number; max: number };
}

/** servers/route-change-apply.ts in its own process: the control-plane change apply time at 10,000 routes. */
async function measureRouteChange(ctx: HarnessContext): Promise<ApplyResult> {
  const managed = ctx.processes.spawn('route-change-apply', process.execPath, {
    args: [path.join(__dirname, '..', 'servers', 'route-change-apply.js'), String(ROUTES), String(ROUTE_CHANGES)],
  });
  const line = await managed.waitForLine((l) => l.startsWith('{"routes"'), 600_000);
  await managed.exited;
  return JSON.parse(line) as ApplyResult;
}

const ms = (value: number | undefined): string => formatNumber(value, 1);
const maxOf = (values: ReadonlyArray<number | undefined>): number | undefined => {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? undefined : Math.max(...known);
};

/** The data plane on 10,000 routes: full reloads without traffic, then the phases in interleaved rounds. */
async function measureReloads(
  ctx: HarnessContext,
  phases: readonly Phase[],
  seconds: number,
): Promise<{ results: Record<Phase, PhaseResult[]>; quiet: QuietReload[]; idleCpuPerSecond: number | undefined }> {
  const results: Record<Phase, PhaseResult[]> = { steady: [], reloading: [] };
  let quiet: QuietReload[] = [];
  let idleCpuPerSecond: number | undefined;
  const stepsDir = makeTempDir('bench-main-thread-');
  const stepsFile = path.join(stepsDir.path, 'main-thread-steps.jsonl');
  try {
    const upstream = await startBenchServer(ctx.processes, 'upstream', 'upstream', [], ctx.options.profileDir);
    const gateway = await startDataPlane(
      ctx,
      'data-plane',
      manyRoutesConfig({ count: ROUTES, upstreamOrigin: upstream.origin }).yaml,
      { [MAIN_THREAD_STEPS_ENV]: stepsFile },
      { startTimeoutMs: 300_000, nodeFlags: MAIN_THREAD_STEPS_FLAGS, ...(process.env[RELOAD_BIN_ENV] === undefined ? {} : { command: baselineCommand(RELOAD_BIN_ENV) }) },
    );
    ctx.log(`data plane with ${ROUTES} routes on ${gateway.origin} (pid ${gateway.pid}, ${process.env[RELOAD_BIN_ENV] ?? 'this build'}); warming up`);
    await runLoad({ origin: gateway.origin, request: { path: manyRoutesRoute(0).requestPath, vary: (s) => ({ path: manyRoutesRoute(s % ROUTES).requestPath }) }, connections: ctx.options.connections, durationSeconds: Math.max(ctx.options.initialWarmupSeconds, 3) });
    if (phases.includes('reloading')) {
      const measured = await quietReloads(gateway, upstream.origin, stepsFile);
      quiet = measured.reloads;
      idleCpuPerSecond = measured.idleCpuPerSecond;
      ctx.log(`main thread idle (no traffic, no reload): ${ms(idleCpuPerSecond)} ms of CPU a second`);
      for (const q of quiet) {
        ctx.log(`reload without traffic: ${ms(q.reloadMs)} ms, longest main-thread step ${ms(q.mainThread?.longestStepCpuMs)} ms CPU, main thread ${ms(q.mainThread?.cpuMs)} ms CPU (${ms(q.netCpuMs)} ms over idle)`);
      }
    }
    for (let round = 1; round <= ctx.options.rounds; round += 1) {
      const order = round % 2 === 1 ? phases : [...phases].reverse();
      for (const phase of order) {
        const result = await runPhase(ctx, phase, gateway, upstream.origin, seconds, round, stepsFile);
        ctx.log(
          `round ${round} ${phase}: p99 ${ms(result.load.p99Ms)} ms, max ${ms(result.load.maxMs)} ms, lag max ${ms(result.lagMaxMs)} ms, ` +
            `longest main-thread step ${ms(result.mainThread?.longestStepCpuMs)} ms CPU, longest GC pause ${ms(result.mainThread?.longestGcMs)} ms, ` +
            `main thread ${ms(cpuPerSecond(result))} ms CPU a second, ${result.reloadMs.length} reloads, ${result.load.unexpected + result.load.errors} failed`,
        );
        results[phase].push(result);
      }
    }
  } finally {
    stepsDir.remove();
  }
  return { results, quiet, idleCpuPerSecond };
}

export const reloadScenario: Scenario = {
  name: 'reload',
  title: 'Reloads at 10,000 routes: requests in flight during SIGHUP reloads, and one route changed through the control plane',
  description:
    'A data plane on the generated 10,000-route proxy.yml (@gateway/testing manyRoutesConfig), GET of 100 B spread over every route: ' +
    'latency and event-loop lag without reloads (steady) and while full SIGHUP reloads run back to back (reloading), interleaved rounds. ' +
    'Then the apply time of one route changed through the control plane (the follower applying an upserted message) at 10,000 routes, ' +
    'against compiling the whole table. Inside the data plane (a preloaded 1 ms timer reading the main thread\'s CPU time, servers/main-thread-steps.ts): ' +
    'the longest main-thread step and the worst event-loop delay of each phase, and of three full reloads without traffic. ' +
    'Goals: p99 while reloading under 20 ms; a change applied in under 5 ms (median); no main-thread step of a reload above 5 ms of CPU.',
  variantNames: ['steady', 'reloading', 'route-change'],
  async run(ctx: HarnessContext): Promise<ScenarioResult> {
    const phases = (['steady', 'reloading'] as const).filter((p) => ctx.variantSelected('reload', p));
    const seconds = Math.max(ctx.options.durationSeconds, MIN_PHASE_SECONDS);
    const { results, quiet, idleCpuPerSecond } = phases.length > 0 ? await measureReloads(ctx, phases, seconds) : { results: { steady: [], reloading: [] }, quiet: [], idleCpuPerSecond: undefined };
    const apply = ctx.variantSelected('reload', 'route-change') ? await measureRouteChange(ctx) : undefined;

    const row = (phase: Phase): string[] => {
      const rs = results[phase];
      return [
        phase,
        formatNumber(median(rs.map((r) => r.load.requestsPerSecond))),
        ms(median(rs.map((r) => r.load.p50Ms))),
        ms(median(rs.map((r) => r.load.p99Ms))),
        ms(median(rs.map((r) => r.load.maxMs))),
        ms(median(rs.map((r) => r.lagP99Ms))),
        ms(median(rs.map((r) => r.lagMaxMs))),
        ms(maxOf(rs.map((r) => r.mainThread?.longestStepCpuMs))),
        ms(maxOf(rs.map((r) => r.mainThread?.worstLoopDelayMs))),
        ms(maxOf(rs.map((r) => r.mainThread?.longestGcMs))),
        ms(median(rs.map(cpuPerSecond))),
        String(rs.reduce((n, r) => n + r.reloadMs.length, 0)),
        ms(median(rs.flatMap((r) => r.reloadMs))),
        String(rs.reduce((n, r) => n + r.load.unexpected + r.load.errors + r.load.timeouts, 0)),
      ];
    };
    const markdown: string[] = [];
    if (phases.length > 0) {
      markdown.push(
        `${ROUTES} routes, ${ctx.options.connections} connections, ${seconds} s per phase, ${ctx.options.rounds} interleaved rounds (medians of the rounds):\n`,
        markdownTable(
          [
            'phase',
            'req/s',
            'p50 ms',
            'p99 ms',
            'max ms',
            'event-loop lag p99 ms',
            'lag max ms',
            'longest main-thread step, CPU ms (max of rounds)',
            'worst loop delay, 1 ms timer, ms (max of rounds)',
            'longest GC pause ms (max of rounds)',
            'main-thread CPU ms a second (median)',
            'reloads',
            'reload time ms (median)',
            'failed requests',
          ],
          phases.map(row),
        ),
        '',
      );
    }
    if (quiet.length > 0) {
      markdown.push(
        `Full reloads of ${ROUTES} routes (2 changed) without traffic, measured inside the data plane's main thread (thread CPU time from /proc, 1 ms timer; from SIGHUP to ${AFTER_RELOAD_MS} ms after the answer):\n`,
        markdownTable(
          ['reload', 'answered ms', 'longest main-thread step, CPU ms', 'main-thread CPU ms', 'of it over idle, ms', 'worst loop delay ms', 'longest GC pause ms'],
          quiet.map((q, i) => [
            String(i + 1),
            ms(q.reloadMs),
            ms(q.mainThread?.longestStepCpuMs),
            ms(q.mainThread?.cpuMs),
            ms(q.netCpuMs),
            ms(q.mainThread?.worstLoopDelayMs),
            ms(q.mainThread?.longestGcMs),
          ]),
        ),
        '',
        `The main thread idle (no traffic, no reload; the monitor's 1 ms timer included) spent ${ms(idleCpuPerSecond)} ms of CPU a second: "over idle" is a reload's window less that.`,
        '',
      );
    }
    if (apply !== undefined) {
      markdown.push(
        `One route changed through the control plane at ${apply.routes} routes (${apply.changes} upserted messages):\n`,
        markdownTable(
          ['measure', 'p50 ms', 'p99 ms', 'max ms'],
          [
            ['applied (message to table swapped), wall', ms(apply.applyMs.p50), ms(apply.applyMs.p99), ms(apply.applyMs.max)],
            ['applied, CPU', ms(apply.applyCpuMs.p50), ms(apply.applyCpuMs.p99), ms(apply.applyCpuMs.max)],
            ['whole table compiled (what a change cost before)', ms(apply.fullCompileMs.p50), ms(apply.fullCompileMs.p99), ms(apply.fullCompileMs.max)],
          ],
        ),
        '',
        `After a swap (the snapshot file written in chunks, the state of the old route released 250 ms later, in slices): longest event-loop delay ${ms(apply.afterSwapMaxTaskMs)} ms, ` +
          `longest main-thread step ${ms(apply.afterSwapMaxStepCpuMs)} ms of CPU. CPU figures: ${apply.threadCpu ? "the main thread's own (/proc)" : 'the whole process'}.`,
        '',
      );
    }
    const reloadingP99 = median(results.reloading.map((r) => r.load.p99Ms));
    const longestQuietStep = maxOf(quiet.map((q) => q.mainThread?.longestStepCpuMs));
    const goals: GoalCheck[] = [
      {
        description: `p99 of requests in flight during full reloads of ${ROUTES} routes, ms`,
        value: reloadingP99,
        below: GOAL_P99_BELOW_MS,
        met: reloadingP99 === undefined ? undefined : reloadingP99 < GOAL_P99_BELOW_MS,
      },
      {
        description: `longest main-thread step of a full reload of ${ROUTES} routes without traffic, CPU ms`,
        value: longestQuietStep,
        below: GOAL_STEP_BELOW_MS,
        met: longestQuietStep === undefined ? undefined : longestQuietStep < GOAL_STEP_BELOW_MS,
      },
      {
        description: `one route changed through the control plane applied at ${ROUTES} routes, ms (median)`,
        value: apply?.applyMs.p50,
        below: GOAL_APPLY_BELOW_MS,
        met: apply === undefined ? undefined : apply.applyMs.p50 < GOAL_APPLY_BELOW_MS,
      },
    ];
    const data: JsonValue = {
      routes: ROUTES,
      phaseSeconds: seconds,
      phases: Object.fromEntries(
        phases.map((p) => [
          p,
          results[p].map((r) => ({
            requestsPerSecond: r.load.requestsPerSecond,
            p50Ms: r.load.p50Ms ?? null,
            p99Ms: r.load.p99Ms ?? null,
            maxMs: r.load.maxMs ?? null,
            lagP99Ms: r.lagP99Ms ?? null,
            lagMaxMs: r.lagMaxMs ?? null,
            reloadMs: r.reloadMs,
            failed: r.load.unexpected + r.load.errors + r.load.timeouts,
            proxyCpuSeconds: r.load.cpuSeconds['proxy'] ?? null,
            otherCpuSeconds: r.load.otherCpuSeconds,
            mainThread: r.mainThread === undefined ? null : { ...r.mainThread },
          })),
        ]),
      ),
      quietReloads: quiet.map((q) => ({ reloadMs: q.reloadMs, mainThread: q.mainThread === undefined ? null : { ...q.mainThread }, netCpuMs: q.netCpuMs ?? null })),
      idleMainThreadCpuMsPerSecond: idleCpuPerSecond ?? null,
      routeChange: apply === undefined ? null : (apply as unknown as JsonValue),
    };
    return { name: 'reload', title: this.title, markdown: markdown.join('\n'), goals, data };
  },
};
