import { mkdirSync, mkdtempSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { makeTempDir } from '@gateway/testing';
import { CallgrindProcess, callgrindWrapper, COMPILATION_COUNTED, valgrindVersion } from './callgrind';
import { FORCED_GC_NODE_FLAGS, ForcedGc } from './forced-gc';
import type { GatewayLaunch } from './gateway';
import {
  batchNet,
  busyTimersRate,
  gcShare,
  idleTimersRate,
  lastCompileShare,
  literalRuntimeShare,
  median,
  withoutLiteralRuntime,
  oldGenerationBytesPerRequest,
  processGross,
  processMean,
  processMedian,
  relativeSpread,
  type Batch,
  type Collection,
  type ProcessCount,
} from './instruction-figures';
import { batchFigures, batchPlan, chargedError, chargedPerRequest, fitProcess, halves, ratioError, relativeDrift, type ProcessFit, type RateFit } from './instruction-fit';
import { warmupPlan } from './instruction-warmup';
import type { ServerProcess } from './processes';
import { formatGoal, formatNumber, markdownTable } from './report';
import type { GoalCheck, HarnessContext, JsonValue, Scenario, ScenarioResult } from './types';

/**
 * One variant of an instruction comparison: the gateway's environment and a proxy.yml overlay,
 * nothing else differs between variants (same node flags, same request, same upstream).
 */
export interface InstructionVariant {
  readonly name: string;
  readonly label: string;
  /** Laid over the gateway's environment. */
  readonly env: NodeJS.ProcessEnv;
  /** Top-level proxy.yml keys laid over the base file (`proxy` is merged key by key). */
  readonly proxy?: Readonly<Record<string, unknown>>;
}

/** How the harness wants a variant's gateway started: under callgrind, with these flags and this proxy.yml. */
export interface InstructionLaunch {
  readonly name: string;
  readonly variant: InstructionVariant;
  readonly proxyYaml: string;
  readonly launch: GatewayLaunch;
}

/** baseline / variant instructions per request >= atLeast. */
export interface InstructionGoal {
  readonly baseline: string;
  readonly variant: string;
  readonly atLeast: number;
  readonly description: string;
}

export interface InstructionComparisonSpec<Env> {
  readonly name: string;
  readonly title: string;
  /** What the variants are (the method is added by the harness). */
  readonly description: string;
  readonly variants: readonly InstructionVariant[];
  readonly baseline: string;
  /** baseline / variant instructions per request >= atLeast. */
  readonly goal: { readonly variant: string; readonly atLeast: number; readonly description: string };
  /** Further goals from the same processes, each against its own baseline (one run serves several goals). */
  readonly moreGoals?: readonly InstructionGoal[];
  /** The GET every request sends (a 200 is required, unless `status` names another). */
  readonly path: string;
  /** The status every answer must have: 200 unless set (a 404 to count the path of requests no route takes). */
  readonly status?: number;
  /** Servers shared by every round (upstream, control plane, routes); upstream timeouts raised for valgrind. */
  prepare(ctx: HarnessContext): Promise<Env>;
  /** Starts one gateway as told (env, proxy.yml, wrapper, flags) and resolves once it serves `path`. */
  start(env: Env, ctx: HarnessContext, launch: InstructionLaunch): Promise<ServerProcess>;
  /** Anything measured before the rounds (a hook alone in a loop), reported under the table. */
  extra?(ctx: HarnessContext): Promise<{ readonly markdown: string; readonly data: JsonValue }>;
}

/** A setting that may be 0 (a count of gaps, say). */
const countSetting = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number >= 0 (got ${process.env[name]})`);
  return value;
};
const setting = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got ${process.env[name]})`);
  return value;
};

/**
 * The settings that make callgrind's count repeat (tools/bench/README.md, "Instructions under
 * callgrind"); every one is the same for every variant.
 * - V8 without background threads: with concurrent compilation a function's optimised code is
 *   installed whenever the compiler thread, which valgrind serialises with the main thread, happens
 *   to finish, so two processes ran different code for different numbers of requests.
 * - No bytecode flushing and no memory reducer: bytecode ages by major collections, so functions
 *   run once a second lost theirs and were compiled lazily again and again; the memory reducer starts a major collection when the allocation rate a millisecond
 *   is low, which under valgrind's slow clock it always is (a precaution: a paced run without
 *   valgrind showed none either way). At full speed under load neither fires.
 * - A long uninstrumented warm-up, and TurboFan's compilations left out of the count
 *   (harness/callgrind.ts): clock-driven code first gets hot while the batches are counted.
 * - One keep-alive connection, one request at a time: every request is the same event-loop turns; with several connections the number of requests a turn handles changed the count.
 * - The median of many short batches per process: a major collection lands in whichever batch
 *   crosses the old generation's limit (the old pooled 1,000-request batches jumped from ~150k to
 *   240-340k Ir a request), so pooled batches of one variant differed by more than the 3 % to
 *   measure. What the collections cost is reported beside it (mean of the batches, the collector's
 *   share), never left out unseen. Forcing a full collection before each batch
 *   (BENCH_CALLGRIND_FORCED_GC=1) is an option, not the default: it deoptimises the request path.
 * - Time-driven work (timers, the delay monitor, once-a-second windows, and the loop turns they
 *   cost outside the timers phase) told apart by a fit per process, Ir = a x requests + b x
 *   seconds, over batches of several sizes and an idle spell (harness/instruction-fit.ts): under
 *   callgrind a request takes milliseconds, so each batch holds ~100x more clock-driven work per
 *   request than at full speed. The verdict charges b at CHARGE_REQUESTS_PER_SECOND.
 */
export const CALLGRIND_NODE_FLAGS: readonly string[] = (process.env['BENCH_CALLGRIND_NODE_FLAGS'] ?? '--single-threaded --no-flush-bytecode --no-memory-reducer')
  .split(' ')
  .filter((f) => f !== '');
/**
 * `BENCH_CALLGRIND_FORCED_GC=1` forces a full collection before every batch (counted apart). Off by
 * default: a forced `gc()` deoptimises 21-24 functions of the request path ("weak objects"), which
 * are then run in baseline code and optimised again during the next batch, so each batch counted
 * about three times a steady request (tools/bench/README.md, "Garbage collection").
 */
const forcingCollections = (): boolean => process.env['BENCH_CALLGRIND_FORCED_GC'] === '1';
/** `BENCH_CALLGRIND_BATCH_SIZES` (comma-separated), else half, once and twice BENCH_CALLGRIND_REQUESTS, taken in turn. */
const batchSizes = (requests: number): number[] => {
  const text = process.env['BENCH_CALLGRIND_BATCH_SIZES'];
  if (text === undefined || text.trim() === '') return [Math.max(1, Math.round(requests / 2)), requests, requests * 2];
  const sizes = text.split(',').map((t) => Number(t.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error(`BENCH_CALLGRIND_BATCH_SIZES must be positive integers separated by commas (got ${text})`);
  return sizes;
};
/**
 * `BENCH_CALLGRIND_PAUSES` (comma-separated, in units of the process's time for BENCH_CALLGRIND_REQUESTS
 * requests, timed in the instrumented warm-up), else 0, 0.5, 1, 2: a pause without traffic after each
 * batch, counted on its own (0: none), taken in turn. A batch's seconds follow its requests (one at a
 * time, each ~10 ms under callgrind), so only points without requests tell the clock's work a second
 * from a request's; with the single 10 s idle spell of the design before 2026-11-28 the fit traded a
 * against b between processes. "0" alone gives that design back.
 */
const pauseFractions = (): number[] => {
  const text = process.env['BENCH_CALLGRIND_PAUSES'];
  if (text === undefined || text.trim() === '') return [0, 0.5, 1, 2];
  const pauses = text.split(',').map((t) => Number(t.trim()));
  if (pauses.some((n) => !Number.isFinite(n) || n < 0)) throw new Error(`BENCH_CALLGRIND_PAUSES must be numbers >= 0 separated by commas (got ${text})`);
  return pauses;
};
const settings = () => ({
  requests: setting('BENCH_CALLGRIND_REQUESTS', 250),
  batchSizes: batchSizes(setting('BENCH_CALLGRIND_REQUESTS', 250)),
  pauses: pauseFractions(),
  chargeRequestsPerSecond: setting('BENCH_CALLGRIND_CHARGE_RPS', CHARGE_REQUESTS_PER_SECOND),
  batches: setting('BENCH_CALLGRIND_BATCHES', 12),
  rounds: setting('BENCH_CALLGRIND_ROUNDS', 3),
  /** Fresh processes a variant within a round, side by side: on a busy machine two at once take the time of one. */
  replicas: setting('BENCH_CALLGRIND_REPLICAS', 1),
  warmup: setting('BENCH_CALLGRIND_WARMUP', 20_000),
  instrumentedWarmup: instrumentedWarmup(),
  /**
   * Gaps without traffic in the uninstrumented warm-up (BENCH_CALLGRIND_WARMUP_GAPS, 3) of
   * BENCH_CALLGRIND_WARMUP_GAP_SECONDS (5: longer than the data plane's 4 s upstream keep-alive,
   * as long as the span export's timer), so the counted pauses meet nothing new (harness/instruction-warmup.ts).
   */
  warmupGaps: countSetting('BENCH_CALLGRIND_WARMUP_GAPS', 3),
  /**
   * BENCH_CALLGRIND_INTERLEAVE=1: the warm-ups run one process at a time, then the batches of a step
   * one process at a time (order turned each step), the pauses together. Side by side (the default), four processes on two cores starve each
   * other unevenly, and a starved process fires fewer timer ticks than its wall time says.
   */
  interleaved: process.env['BENCH_CALLGRIND_INTERLEAVE'] === '1',
  warmupGapSeconds: countSetting('BENCH_CALLGRIND_WARMUP_GAP_SECONDS', 5),
  connections: setting('BENCH_CALLGRIND_CONNECTIONS', 1),
  idleSeconds: setting('BENCH_CALLGRIND_IDLE_SECONDS', 10),
  forcedCollections: forcingCollections(),
});
/**
 * Instrumented requests after instrumentation is switched on, before the first zero (callgrind
 * retranslates everything), BENCH_CALLGRIND_INSTRUMENTED_WARMUP: 300 by default. The run of
 * 2026-11-28 01:09 (load ~17) had each batch's figure fall from ~189k to ~104k Ir a request
 * through a process, so the processes were still settling after 300.
 */
const instrumentedWarmup = (): number => setting('BENCH_CALLGRIND_INSTRUMENTED_WARMUP', 300);
/**
 * The longest pause unit (s): 2 units is the longest pause. Points without requests of 30-60 s
 * measure b to ~3 % (2026-11-28: 481-497k Ir/s over pauses of 9-40 s); longer ones only lengthen the run.
 */
const PAUSE_UNIT_AT_MOST_SECONDS = 30;
/** A process under valgrind on a busy machine can stall for a long time (instrumentation switched on, GC). */
const REQUEST_TIMEOUT_MS = 300_000;
const START_UNDER_VALGRIND_MS = 300_000;
/** How closely the processes' figures must agree for a verdict: ±1.5 % (valgrind's repeatability). */
const REPEAT_WITHIN = 0.03;
/**
 * The largest standard error, relative to the figure, of a process's goal figure (a + b / R) that
 * still allows a verdict. The goals tell apart 1-5 % differences; a fit whose a and b trade against
 * each other (requests and seconds moving together) reads an error several times this.
 */
const FIGURE_ERROR_AT_MOST = 0.01;
/** A pair's ratio must lie this many of its standard errors from the goal for a verdict. */
const ERRORS_FROM_GOAL = 2;
/**
 * The most a process's batch figures may move from the first half of its batches to the second,
 * relative to its goal figure, for a verdict: a process still settling is averaged over a moving
 * target (2026-11-28: 195k to 115k Ir a request through a process, the request path re-optimised
 * after the first counted connection), and the goals tell apart 1-5 %.
 */
const DRIFT_AT_MOST = 0.01;
/**
 * `BENCH_CALLGRIND_NULL=<baseline>/<variant>`: two variants that run the same code (an A/A pair, e.g.
 * the same commit built twice). Their ratio is the harness's null: every pair must read 1 within
 * NULL_WITHIN, or no goal of the run gets a verdict (what the harness cannot tell from 1, it cannot
 * tell from a goal either).
 */
const nullPair = (): { baseline: string; variant: string } | undefined => {
  const text = process.env['BENCH_CALLGRIND_NULL'];
  if (text === undefined || text.trim() === '') return undefined;
  const [baseline, variant, ...rest] = text.split('/').map((t) => t.trim());
  if (baseline === undefined || variant === undefined || baseline === '' || variant === '' || rest.length > 0) throw new Error(`BENCH_CALLGRIND_NULL must be <baseline>/<variant> (got ${text})`);
  return { baseline, variant };
};
const NULL_WITHIN = 0.01;
/**
 * The most of a process's batches that may run object-literal definitions through V8's runtime
 * (InstructionCount.literalRuntime) for a verdict: a process left there by its warm-up counts ~40k
 * Ir a request that the same code elsewhere does not (2026-11-28: every tracing-off process warmed
 * up beside others, no 10 %-sampled one), a state of V8, not a cost of the variant.
 */
const LITERAL_RUNTIME_AT_MOST = 0.01;
/**
 * The request rate at which a process's clock-driven work (Ir a second, fitted) is charged to its
 * requests in the verdict (BENCH_CALLGRIND_CHARGE_RPS): what one data plane served on these 2 cores
 * with its load generator and upstream beside it (tools/bench/README.md, Results, "Proxy overhead
 * (issue 2)": 4,240 req/s at 100 B), rounded down; the report gives 1,000 req/s beside it.
 */
export const CHARGE_REQUESTS_PER_SECOND = 4000;

/** The base proxy.yml: the gateway's own deadlines raised (under valgrind a request can take seconds). */
const BASE_PROXY = { version: '1.0.0', proxy: { headersTimeout: 600_000, requestTimeout: 600_000, keepAliveTimeout: 600_000 }, routes: [] };

/** proxy.yml for a variant (JSON is YAML). */
export function overlayProxyYaml(overlay: Readonly<Record<string, unknown>> = {}): string {
  const proxy = { ...BASE_PROXY.proxy, ...((overlay['proxy'] as Record<string, unknown> | undefined) ?? {}) };
  return `${JSON.stringify({ ...BASE_PROXY, ...overlay, proxy }, null, 2)}\n`;
}

/**
 * Where a round's callgrind dumps go: a temp dir removed after the round, or, with
 * `BENCH_CALLGRIND_KEEP_DIR`, a fresh folder inside that one, kept for `callgrind_annotate`.
 */
function dumpDir(): { path: string; remove(): void } {
  const keep = process.env['BENCH_CALLGRIND_KEEP_DIR'];
  if (keep === undefined || keep === '') return makeTempDir('gateway-bench-callgrind-');
  mkdirSync(keep, { recursive: true });
  return { path: mkdtempSync(path.join(keep, 'round-')), remove: () => undefined };
}

/** `count` GETs over `connections` keep-alive connections, each one waiting for its previous answer; every answer must have `status`. */
async function sendRequests(origin: string, path: string, count: number, connections: number, status = 200): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const started = process.hrtime.bigint();
  let next = 0;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = http.get(origin + path, { agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === status ? resolve() : reject(new Error(`${origin}${path} answered ${res.statusCode}`))));
      });
      req.on('timeout', () => req.destroy(new Error(`${origin}${path} did not answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', reject);
    });
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      await one();
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    agent.destroy();
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const percent = (value: number): string => (Number.isFinite(value) ? `${(value * 100).toFixed(1)} %` : '—');
/** Above this share of TurboFan in a last batch, the warm-up was too short for a verdict. */
const COMPILING_AT_MOST = 0.02;

/**
 * An instruction count per request of gateway variants under valgrind's callgrind, for goals like
 * "at most 3 % more instructions per request" where the VM has no hardware counters. A round starts
 * a fresh process per variant (all under callgrind, instrumentation off), warms each up
 * uninstrumented, switches instrumentation on, then counts batches of sequential requests, each
 * after a full collection counted on its own (zeroed before, dumped after: no start-up in the
 * count), and an idle spell of every variant at once.
 */
export function defineInstructionComparison<Env>(spec: InstructionComparisonSpec<Env>): Scenario {
  const names = spec.variants.map((v) => v.name);
  for (const g of goalsOf(spec)) if (!names.includes(g.baseline) || !names.includes(g.variant)) throw new Error(`${spec.name}: a goal's baseline and variant must be variants`);
  const s0 = settings();
  const description =
    `${spec.description} Counted by valgrind --tool=callgrind (harness/instruction-comparison.ts): node ${CALLGRIND_NODE_FLAGS.join(' ')} for every variant, ` +
    `${s0.rounds} rounds of fresh processes (BENCH_CALLGRIND_ROUNDS), ${s0.warmup} uninstrumented warm-up requests (BENCH_CALLGRIND_WARMUP) in chunks of the batches' sizes, each on a fresh connection, with ${s0.warmupGaps} gaps of ${s0.warmupGapSeconds} s (BENCH_CALLGRIND_WARMUP_GAPS, _GAP_SECONDS), then ${s0.batches} ` +
    `batches (BENCH_CALLGRIND_BATCHES) of sequential GETs on one keep-alive connection (BENCH_CALLGRIND_REQUESTS), each followed by a pause without traffic counted on its own, ${s0.pauses.join(', ')} in turn (BENCH_CALLGRIND_PAUSES, in units of the process's time for ${s0.requests} requests), ` +
    `${s0.forcedCollections ? 'each after a full collection counted apart (BENCH_CALLGRIND_FORCED_GC=1), ' : 'back to back (BENCH_CALLGRIND_FORCED_GC=1 forces a full collection before each), '}` +
    `and ${s0.idleSeconds} s without traffic. Per process a least-squares fit Ir = a x requests + b x seconds over the batches (sizes ${s0.batchSizes.join(', ')} in turn, BENCH_CALLGRIND_BATCH_SIZES), the pauses and the idle spell; the median batch beside it. ` +
    `${COMPILATION_COUNTED ? 'TurboFan compilations counted (BENCH_CALLGRIND_COUNT_COMPILATION=1). ' : 'TurboFan compilations not counted (callgrind --toggle-collect; BENCH_CALLGRIND_COUNT_COMPILATION=1 counts them). '}Goal: ${goalsOf(spec).map((g) => `${g.description} >= ${g.atLeast.toFixed(3)}`).join('; ')}, each process's b ` +
    `charged at ${s0.chargeRequestsPerSecond} requests a second (BENCH_CALLGRIND_CHARGE_RPS). Ignores --duration, --rounds and --connections.`;

  /** One round: a fresh process per variant and replica; one map (variant -> counts) per replica. */
  async function round(ctx: HarnessContext, env: Env, r: number): Promise<Array<Map<string, ProcessCount>>> {
    const s = settings();
    const variants = spec.variants.filter((v) => ctx.variantSelected(spec.name, v.name));
    const outDir = dumpDir();
    const started: Array<{ variant: InstructionVariant; replica: number; key: string; server: ServerProcess; callgrind: CallgrindProcess; gc: ForcedGc; pauseUnit: number }> = [];
    const launches = Array.from({ length: s.replicas }, (_, k) => variants.map((variant) => ({ variant, replica: k }))).flat();
    try {
      for (const { variant, replica } of launches) {
        const name = `${spec.name}-${variant.name}-r${r}${s.replicas > 1 ? `-p${replica + 1}` : ''}`;
        const nodeFlags = [...CALLGRIND_NODE_FLAGS, ...(s.forcedCollections ? FORCED_GC_NODE_FLAGS : [])];
        const server = await spec.start(env, ctx, {
          name,
          variant,
          proxyYaml: overlayProxyYaml(variant.proxy),
          launch: { wrapper: callgrindWrapper(outDir.path, name), startTimeoutMs: START_UNDER_VALGRIND_MS, nodeFlags },
        });
        started.push({ variant, replica, key: name, server, callgrind: new CallgrindProcess(server.pid, outDir.path, name), gc: new ForcedGc(server.process, REQUEST_TIMEOUT_MS), pauseUnit: 0 });
      }
      const warmUp = async (p: (typeof started)[number]): Promise<void> => {
        // Chunks of the batches' sizes, each on a fresh connection as the batches are, with gaps:
        // a warm-up on one connection left the first counted connection to deoptimise the request path.
        for (const step of warmupPlan(s.warmup, s.batchSizes, s.warmupGaps, s.warmupGapSeconds)) {
          if ('requests' in step) await sendRequests(p.server.origin, spec.path, step.requests, s.connections, spec.status);
          else await new Promise((resolve) => setTimeout(resolve, step.gapSeconds * 1000));
        }
        p.callgrind.instrument();
        const seconds = await sendRequests(p.server.origin, spec.path, s.instrumentedWarmup, s.connections, spec.status);
        // The pauses' unit: how long this process takes for a mid-size batch, instrumented, at most
        // PAUSE_UNIT_AT_MOST_SECONDS (at load 20 a request took 0.35 s and the unit 90 s: a 33-minute run).
        p.pauseUnit = Math.min(PAUSE_UNIT_AT_MOST_SECONDS, (seconds / s.instrumentedWarmup) * s.requests);
      };
      if (s.interleaved) {
        // One process's warm-up at a time: which state V8 leaves a process in depends on the warm-up's
        // timing (2026-11-28: warmed up beside other processes, process.nextTick's tick-object literal
        // ended on V8's runtime path in some processes, ~40k Ir a request; warmed up alone, in none).
        for (const p of started) await warmUp(p);
      } else {
        // Side by side: a count does not depend on what else the machine does (only the timers phase
        // does, and it is counted apart), and a shared machine gives each process a share.
        await Promise.all(started.map(warmUp));
      }
      const batches = new Map<string, Batch[]>(started.map((p) => [p.key, []]));
      const collections = new Map<string, Collection[]>(started.map((p) => [p.key, []]));
      const pauses = new Map<string, Batch[]>(started.map((p) => [p.key, []]));
      // A full collection counted on its own: the next batch starts from a collected heap.
      const collect = async (p: (typeof started)[number]): Promise<void> => {
        p.callgrind.zero();
        const heap = await p.gc.collect();
        collections.get(p.key)?.push({ ...heap, count: p.callgrind.dump() });
      };
      const plan = batchPlan(s.batches, s.batchSizes, s.pauses);
      for (let b = 0; b < s.batches; b += 1) {
        // Sizes and pauses in cycles of coprime lengths. A batch's seconds follow its requests, so
        // the pauses (and the idle spell) are what tell the clock's work from a request's: with the
        // idle spell alone the fit traded a against b between processes (main 19b36ba: 0.898
        // where the median batches differed by 1 %).
        const { requests, pause } = plan[b] as { requests: number; pause: number };
        const batch = async (p: (typeof started)[number]): Promise<void> => {
          if (s.forcedCollections) await collect(p);
          p.callgrind.zero();
          const seconds = await sendRequests(p.server.origin, spec.path, requests, s.connections, spec.status);
          batches.get(p.key)?.push({ count: p.callgrind.dump(), seconds, requests });
        };
        const rest = async (p: (typeof started)[number]): Promise<void> => {
          if (pause === 0) return;
          p.callgrind.zero();
          const from = process.hrtime.bigint();
          await new Promise((resolve) => setTimeout(resolve, pause * p.pauseUnit * 1000));
          pauses.get(p.key)?.push({ count: p.callgrind.dump(), seconds: Number(process.hrtime.bigint() - from) / 1e9, requests: 0 });
        };
        if (s.interleaved) {
          // One process's batch at a time, the order turned each step, then every pause at once:
          // each batch has the machine's share of one process, whatever the others do.
          for (let k = 0; k < started.length; k += 1) await batch(started[(b + k) % started.length] as (typeof started)[number]);
          await Promise.all(started.map(rest));
        } else {
          await Promise.all(started.map(async (p) => (await batch(p), await rest(p))));
        }
      }
      if (s.forcedCollections) await Promise.all(started.map(collect));
      for (const p of started) p.callgrind.zero();
      const idleStarted = process.hrtime.bigint();
      await new Promise((resolve) => setTimeout(resolve, s.idleSeconds * 1000));
      const counts = Array.from({ length: s.replicas }, () => new Map<string, ProcessCount>());
      for (const p of started) {
        const idle = { count: p.callgrind.dump(), seconds: Number(process.hrtime.bigint() - idleStarted) / 1e9, requests: 0 };
        const count: ProcessCount = { batches: batches.get(p.key) ?? [], collections: collections.get(p.key) ?? [], idle, pauses: pauses.get(p.key) ?? [] };
        counts[p.replica]?.set(p.variant.name, count);
        const f = fitProcess(withoutLiteralRuntime(count));
        ctx.log(
          `round ${r}${s.replicas > 1 ? ` process ${p.replica + 1}` : ''} ${p.variant.name}: batches ${count.batches.map((bt) => `${bt.requests} req ${formatNumber(bt.count.all)} Ir ${bt.seconds.toFixed(1)} s (net ${formatNumber(batchNet(bt))}/req, gc ${percent(bt.count.gc / bt.count.all)}, ${percent(bt.count.compile / bt.count.all)} compiling)`).join(', ')}; ` +
            `pauses ${count.pauses.map((ps) => `${formatNumber(ps.count.all)} Ir ${ps.seconds.toFixed(1)} s`).join(', ')}; idle ${formatNumber(idle.count.all)} Ir ${idle.seconds.toFixed(1)} s; ` +
            `fit ${formatNumber(f.perRequest)} Ir/request (${formatNumber(f.fit.perRequest)} + collector ${formatNumber(f.gcPerRequest)}) + ${formatNumber(f.perSecond)} Ir/s, R² ${f.fit.r2.toFixed(4)}, each batch less b x seconds ${batchFigures(withoutLiteralRuntime(count), f).map((x) => formatNumber(x)).join(', ')} Ir/request, a ± ${formatNumber(f.fit.perRequestError)}, b ± ${formatNumber(f.fit.perSecondError)}, requests/seconds correlation ${f.fit.correlation.toFixed(3)} (${f.busyOnly.correlation.toFixed(3)} over the batches alone); batches alone ${formatNumber(f.busyOnly.perRequest)} + ${formatNumber(f.busyOnly.perSecond)} Ir/s; ` +
            `literals through the runtime ${percent(literalRuntimeShare(count))}; median ${formatNumber(processMedian(count))}, mean ${formatNumber(processMean(count))}, main thread median ${formatNumber(processMedian(count, 'main'))}; ` +
            `full collections ${count.collections.map((c) => formatNumber(c.count.gc)).join(', ')} Ir; old generation ${formatNumber(oldGenerationBytesPerRequest(count))} B/request; ` +
            `timers ${formatNumber(busyTimersRate(count))} Ir/s busy, ${formatNumber(idleTimersRate(count))} idle; idle outside timers ${formatNumber((idle.count.all - idle.count.timers) / idle.seconds)} Ir/s`,
        );
      }
      return counts;
    } finally {
      for (const p of started) await p.server.process.stop();
      outDir.remove();
    }
  }

  return {
    name: spec.name,
    title: spec.title,
    description,
    variantNames: names,
    run: async (ctx: HarnessContext): Promise<ScenarioResult> => {
      const valgrind = valgrindVersion();
      if (!valgrind.available) {
        const goals: GoalCheck[] = goalsOf(spec).map((g) => ({ description: `${g.description} (callgrind)`, atLeast: g.atLeast, value: undefined, met: undefined }));
        return { name: spec.name, title: spec.title, markdown: `valgrind unavailable: ${valgrind.reason}\n`, goals, data: { error: valgrind.reason } };
      }
      const s = settings();
      ctx.log(
        `${valgrind.version}; node ${CALLGRIND_NODE_FLAGS.join(' ')}; ${s.rounds} rounds x ${s.replicas} process(es) of ${s.batches} batches of ${s.batchSizes.join('/')} requests per variant over ${s.connections} connection(s); ` +
          `${s.forcedCollections ? 'a full collection before every batch' : 'no forced collections'}`,
      );
      const extra = spec.extra ? await spec.extra(ctx) : undefined;
      const env = await spec.prepare(ctx);
      const rounds: Array<Map<string, ProcessCount>> = [];
      // Each replica of a round counts as a round of its own from here on: fresh processes either way.
      for (let r = 1; r <= s.rounds; r += 1) rounds.push(...(await round(ctx, env, r)));
      return report(spec, s, valgrind.version, rounds, extra);
    },
  };
}

/** Every goal of a comparison: the main one against `baseline`, then `moreGoals`. */
function goalsOf<Env>(spec: InstructionComparisonSpec<Env>): InstructionGoal[] {
  return [{ baseline: spec.baseline, ...spec.goal }, ...(spec.moreGoals ?? [])];
}

/** The table, each goal's ratios and verdict, and the JSON of a finished comparison. */
function report<Env>(
  spec: InstructionComparisonSpec<Env>,
  s: ReturnType<typeof settings>,
  valgrindVersionText: string,
  rounds: ReadonlyArray<Map<string, ProcessCount>>,
  extra: { readonly markdown: string; readonly data: JsonValue } | undefined,
): ScenarioResult {
  const ran = spec.variants.filter((v) => rounds.every((r) => r.has(v.name)));
  const of = (r: Map<string, ProcessCount>, v: string): ProcessCount => r.get(v) as ProcessCount;
  const processesOf = (v: string): ProcessCount[] => rounds.map((r) => of(r, v));
  const fits = new Map<ProcessCount, ProcessFit>(rounds.flatMap((r) => [...r.values()].map((p): [ProcessCount, ProcessFit] => [p, fitProcess(withoutLiteralRuntime(p))])));
  const fitOf = (p: ProcessCount): ProcessFit => fits.get(p) as ProcessFit;
  const rate = s.chargeRequestsPerSecond;
  // The verdict's figure: a process's per-request cost plus its clock's work a second shared by `rate` requests.
  const figure = (p: ProcessCount): number => chargedPerRequest(fitOf(p), rate);
  const perRequest = (p: ProcessCount): number => fitOf(p).perRequest;
  const figureError = (p: ProcessCount): number => chargedError(fitOf(p), rate);
  const driftOf = (p: ProcessCount): number => relativeDrift(batchFigures(withoutLiteralRuntime(p), fitOf(p)), figure(p));
  const rows = ran.map((v) => {
    const processes = processesOf(v.name);
    const over = (pick: (p: ProcessCount) => number): number => median(processes.map(pick));
    const each = (pick: (p: ProcessCount) => number, digits = 0): string => processes.map((p) => formatNumber(pick(p), digits)).join(' / ');
    return [
      v.label,
      each(perRequest),
      percent(relativeSpread(processes.map(perRequest))),
      each((p) => fitOf(p).perSecond),
      each((p) => fitOf(p).busyOnly.perSecond),
      each((p) => fitOf(p).fit.r2, 4),
      each((p) => fitOf(p).fit.perRequestError),
      processes.map((p) => percent(figureError(p) / figure(p))).join(' / '),
      each((p) => fitOf(p).fit.correlation, 3),
      processes.map((p) => {
        const h = halves(batchFigures(withoutLiteralRuntime(p), fitOf(p)));
        return `${formatNumber(h.first)} → ${formatNumber(h.second)}`;
      }).join(' / '),
      processes.map((p) => `${(driftOf(p) * 100).toFixed(1)} %`).join(' / '),
      processes.map((p) => percent(literalRuntimeShare(p))).join(' / '),
      formatNumber(over(figure)),
      formatNumber(over((p) => processMedian(p))),
      formatNumber(over((p) => processMean(p))),
      percent(over(gcShare)),
      formatNumber(over(busyTimersRate)),
      formatNumber(over(idleTimersRate)),
      percent(Math.max(...processes.map(lastCompileShare))),
    ];
  });
  // Verdict rule, per goal: each variant's processes agree on the per-request cost (at least two
  // of them), TurboFan is out of the batches, and every round's ratio falls on the same side of the
  // goal (a goal closer than the noise gets none).
  const repeatsOf = (v: string): boolean => rounds.length >= 2 && relativeSpread(processesOf(v).map(perRequest)) <= REPEAT_WITHIN;
  const compiled = rounds.every((r) => [...r.values()].every((p) => lastCompileShare(p) <= COMPILING_AT_MOST));
  // The fit's condition: a process whose goal figure carries a standard error above the limit had
  // requests and seconds too nearly in step (or its batches too noisy) to tell a from b.
  const conditioned = (v: string): boolean => processesOf(v).every((p) => figureError(p) / figure(p) <= FIGURE_ERROR_AT_MOST);
  const settled = (v: string): boolean => processesOf(v).every((p) => Math.abs(driftOf(p)) <= DRIFT_AT_MOST);
  const compiledLiterals = (v: string): boolean => processesOf(v).every((p) => literalRuntimeShare(p) <= LITERAL_RUNTIME_AT_MOST);
  // The A/A pair, when named: the harness's own spread between two builds of the same code.
  const aa = nullPair();
  const aaRan = aa !== undefined && ran.some((v) => v.name === aa.baseline) && ran.some((v) => v.name === aa.variant);
  if (aa !== undefined && !aaRan) throw new Error(`BENCH_CALLGRIND_NULL names ${aa.baseline}/${aa.variant}, which did not both run`);
  const aaRatios = aa !== undefined && aaRan ? rounds.map((r) => figure(of(r, aa.baseline)) / figure(of(r, aa.variant))) : [];
  const aaHolds = aaRatios.every((x) => Math.abs(x - 1) <= NULL_WITHIN);
  const list = (values: number[]): string => values.map((v) => v.toFixed(4)).join(', ');
  const evaluated = goalsOf(spec).map((g) => {
    const ranBoth = ran.some((v) => v.name === g.baseline) && ran.some((v) => v.name === g.variant);
    const ratiosOf = (pick: (p: ProcessCount) => number): number[] => (ranBoth ? rounds.map((r) => pick(of(r, g.baseline)) / pick(of(r, g.variant))) : []);
    const verdictRatios = ratiosOf(figure);
    const verdictErrors = ranBoth ? rounds.map((r) => ratioError(figure(of(r, g.baseline)), figureError(of(r, g.baseline)), figure(of(r, g.variant)), figureError(of(r, g.variant)))) : [];
    const wellConditioned = ranBoth && conditioned(g.baseline) && conditioned(g.variant);
    const steady = ranBoth && settled(g.baseline) && settled(g.variant);
    // A baseline process on the literal runtime path is fitted without it: a lower bound of its
    // cost, so its ratio can only read low and "met" still holds; a variant's would read high.
    const sameState = ranBoth && compiledLiterals(g.variant);
    const bound = sameState && !compiledLiterals(g.baseline);
    const clearOfGoal = verdictRatios.every((x, k) => Math.abs(x - g.atLeast) >= ERRORS_FROM_GOAL * (verdictErrors[k] as number));
    const ratios = {
      perRequest: ratiosOf(perRequest),
      atOneThousandRequestsASecond: ratiosOf((p) => chargedPerRequest(fitOf(p), 1000)),
      goal: verdictRatios,
      medianBatch: ratiosOf((p) => processMedian(p)),
      meanOfBatches: ratiosOf((p) => processMean(p)),
      withTimers: ratiosOf((p) => processGross(p)),
    };
    const perSecondMore = ranBoth ? median(rounds.map((r) => fitOf(of(r, g.variant)).perSecond - fitOf(of(r, g.baseline)).perSecond)) : Number.NaN;
    const repeats = ranBoth && repeatsOf(g.baseline) && repeatsOf(g.variant);
    const fitted = verdictRatios.every(Number.isFinite);
    const decisive = verdictRatios.every((x) => x >= g.atLeast) || verdictRatios.every((x) => x < g.atLeast);
    const value = ranBoth && fitted ? median(verdictRatios) : undefined;
    const check: GoalCheck = {
      description:
        `${g.description} (callgrind, per-second work charged at ${formatNumber(rate)} requests a second)` +
        (fitted ? '' : ' — requests and seconds could not be told apart in a process (batches of one size and no idle spell?), so no verdict') +
        (repeats ? '' : rounds.length < 2 ? ' — one process a variant, nothing shows it repeats, so no verdict' : ` — processes of one variant disagree by more than ${REPEAT_WITHIN * 100} % per request, so no verdict`) +
        (compiled ? '' : ` — TurboFan was above ${COMPILING_AT_MOST * 100} % of a last batch (raise BENCH_CALLGRIND_WARMUP), so no verdict`) +
        (decisive ? '' : ' — the rounds fall on both sides of the goal, so no verdict') +
        (!fitted || wellConditioned ? '' : ` — a process's goal figure has a standard error above ${FIGURE_ERROR_AT_MOST * 100} % (requests and seconds moved together, or the batches scatter or drift: see the table), so no verdict`) +
        (!fitted || !wellConditioned || clearOfGoal ? '' : ` — a pair's ratio lies within ${ERRORS_FROM_GOAL} standard errors of the goal, so no verdict`) +
        (!fitted || steady ? '' : ` — a process's batch figures drift by more than ${DRIFT_AT_MOST * 100} % from the first half to the second (still settling: see the table), so no verdict`) +
        (!ranBoth || sameState ? '' : ` — a ${g.variant} process ran more than ${LITERAL_RUNTIME_AT_MOST * 100} % of its batches in V8's runtime defining object literals (a warm-up's state, not the variant; its figure, fitted without that path, is a lower bound), so no verdict`) +
        (bound ? ` — a ${g.baseline} process ran more than ${LITERAL_RUNTIME_AT_MOST * 100} % of its batches in V8's runtime defining object literals; fitted without that path its figure is a lower bound, so the ratio is too: "met" holds, "not met" would not be a verdict` : '') +
        (aaHolds ? '' : ` — the A/A pair (BENCH_CALLGRIND_NULL) reads ${list(aaRatios)}, not 1 within ${NULL_WITHIN * 100} %, so no verdict`),
      value,
      atLeast: g.atLeast,
      ...(verdictRatios.length > 0 && fitted ? { rounds: { low: Math.min(...verdictRatios), high: Math.max(...verdictRatios), used: verdictRatios.length, total: verdictRatios.length } } : {}),
      met: value !== undefined && repeats && compiled && decisive && wellConditioned && clearOfGoal && steady && sameState && aaHolds && (!bound || value >= g.atLeast) ? value >= g.atLeast : undefined,
    };
    const markdown = ranBoth
      ? `${g.baseline}/${g.variant} per process pair: per request (fit) ${list(ratios.perRequest)}; with each process's per-second work charged at ${formatNumber(rate)} requests a second ` +
        `(the goal's figure) ${verdictRatios.map((x, k) => `${x.toFixed(4)} ± ${(verdictErrors[k] as number).toFixed(4)}`).join(', ')}; at 1,000 requests a second ${list(ratios.atOneThousandRequestsASecond)}. ${g.variant} does ${formatNumber(perSecondMore)} Ir/s more ` +
        `clock-driven work (median of the pairs). The earlier figures, each request charged its batch's wall time: median batches ${list(ratios.medianBatch)}, means of the batches ` +
        `${list(ratios.meanOfBatches)}, timers phase left in ${list(ratios.withTimers)}.`
      : '';
    return { goal: g, check, ratios: { ...ratios, goalErrors: verdictErrors }, perSecondMore, markdown };
  });
  const markdown = [
    markdownTable(
      [
        'variant',
        'Ir / request (fit, each process)',
        'spread over processes',
        'Ir / s (fit, each process)',
        'Ir / s, batches alone (each process)',
        'R² (each process)',
        'standard error of a (each process)',
        `standard error of a + b / ${formatNumber(rate)}, relative (each process)`,
        'correlation of requests and seconds over the points (each process)',
        'batches less b x seconds, per request: first half → second half (each process)',
        'drift: second half - first half, relative to the goal figure (each process)',
        "literals through V8's runtime, share of the batches (each process)",
        `Ir / request at ${formatNumber(rate)} req/s (median)`,
        'median batch, timers out (earlier figure)',
        'mean of batches, timers out',
        'GC share of batches',
        'timers Ir / s, busy',
        'timers Ir / s, idle',
        'TurboFan share, last batch',
      ],
      rows,
    ),
    '',
    `${s.rounds} rounds x ${s.replicas} process(es) a variant side by side (fresh processes each) x ${s.batches} batches of ${s.batchSizes.join(', ')} sequential requests in turn over ${s.connections} keep-alive connection(s) per variant, ` +
      `${s.forcedCollections ? 'each after a full collection forced and counted apart' : 'no forced collection'}, each followed by a pause without traffic counted on its own, ${s.pauses.join(', ')} in turn ` +
      `(units of the process's time for ${s.requests} requests), then ${s.idleSeconds} s without traffic; ` +
      `node ${CALLGRIND_NODE_FLAGS.join(' ')}; ${valgrindVersionText}; TurboFan's compilations ${COMPILATION_COUNTED ? 'counted' : 'not counted (--toggle-collect)'}. ` +
      'Per process, least squares over its batches, its pauses and its idle spell: Ir = a x requests + b x seconds (every thread, the timers phase in, the collector out of the points ' +
      'and added back to a as its mean per request over the batches). Ir / request is a, Ir / s is b; "batches alone" is b fitted without the idle spell (a cross-check that the clock ' +
      `costs as much under traffic). The goal's figure is a + b / ${formatNumber(rate)} (BENCH_CALLGRIND_CHARGE_RPS). Spread: (max - min) / median. ` +
      `A verdict needs each variant's processes within ${REPEAT_WITHIN * 100} % on a, every process pair on the same side of the goal, every process's goal figure ` +
      `with a standard error (from the fit's residuals) of at most ${FIGURE_ERROR_AT_MOST * 100} %, every pair's ratio at least ${ERRORS_FROM_GOAL} of its standard errors from the goal, ` +
      `every process's batch figures within ${DRIFT_AT_MOST * 100} % from the first half to the second, at most ${LITERAL_RUNTIME_AT_MOST * 100} % of every variant process's batches defining literals in V8's runtime (every figure is fitted without that path; a baseline process that ran there makes the ratio a lower bound, which can only give "met"), and, with BENCH_CALLGRIND_NULL, the A/A pair within ${NULL_WITHIN * 100} % of 1.`,
    '',
    ...evaluated.flatMap((e) => (e.markdown === '' ? [] : [e.markdown, ''])),
    ...(aa !== undefined ? [`A/A (BENCH_CALLGRIND_NULL, the same code on both sides): ${aa.baseline}/${aa.variant} per process pair on the goal's figure ${list(aaRatios)}; ${aaHolds ? `within ${NULL_WITHIN * 100} % of 1, so the run can give verdicts` : `not within ${NULL_WITHIN * 100} % of 1, so no goal of this run gets a verdict`}.`, ''] : []),
    ...(extra ? [extra.markdown, ''] : []),
    ...evaluated.map((e) => formatGoal(e.check)),
    '',
  ].join('\n');
  const fitJson = (f: RateFit): JsonValue => ({
    perRequest: f.perRequest,
    perSecond: f.perSecond,
    r2: f.r2,
    points: f.points,
    perRequestError: f.perRequestError,
    perSecondError: f.perSecondError,
    covariance: f.covariance,
    correlation: f.correlation,
  });
  const data: JsonValue = {
    valgrind: valgrindVersionText,
    nodeFlags: [...CALLGRIND_NODE_FLAGS],
    settings: s,
    rounds: rounds.map((r) =>
      Object.fromEntries(
        [...r].map(([name, p]) => [
          name,
          {
            fit: { ...(fitJson(fitOf(p).fit) as Record<string, JsonValue>), gcPerRequest: fitOf(p).gcPerRequest, busyOnly: fitJson(fitOf(p).busyOnly) },
            idle: { ...p.idle.count, seconds: p.idle.seconds },
            batches: p.batches.map((b) => ({ ...b.count, seconds: b.seconds, requests: b.requests })),
            pauses: p.pauses.map((b) => ({ ...b.count, seconds: b.seconds })),
            collections: p.collections.map((c) => ({ ...c.count, oldGenerationBefore: c.oldGenerationBefore, oldGenerationAfter: c.oldGenerationAfter })),
          },
        ]),
      ),
    ),
    goals: evaluated.map((e) => ({ baseline: e.goal.baseline, variant: e.goal.variant, chargeRequestsPerSecond: rate, ratios: e.ratios, perSecondMore: e.perSecondMore })),
    drift: rounds.map((r) => Object.fromEntries([...r].map(([name, p]) => [name, driftOf(p)]))),
    ...(aa !== undefined ? { aa: { ...aa, ratios: aaRatios, holds: aaHolds } } : {}),
    ...(extra ? { extra: extra.data } : {}),
  };
  return { name: spec.name, title: spec.title, markdown, goals: evaluated.map((e) => e.check), data };
}
