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
  fullCollectionInstructions,
  gcShare,
  idleTimersRate,
  lastCompileShare,
  median,
  oldGenerationBytesPerRequest,
  processGross,
  processMean,
  processMeanWithCollections,
  processMedian,
  relativeSpread,
  type Batch,
  type Collection,
  type ProcessCount,
} from './instruction-figures';
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
  /** The GET every request sends (a 200 is required). */
  readonly path: string;
  /** Servers shared by every round (upstream, control plane, routes); upstream timeouts raised for valgrind. */
  prepare(ctx: HarnessContext): Promise<Env>;
  /** Starts one gateway as told (env, proxy.yml, wrapper, flags) and resolves once it serves `path`. */
  start(env: Env, ctx: HarnessContext, launch: InstructionLaunch): Promise<ServerProcess>;
  /** Anything measured before the rounds (a hook alone in a loop), reported under the table. */
  extra?(ctx: HarnessContext): Promise<{ readonly markdown: string; readonly data: JsonValue }>;
}

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
 * - Time-driven work (timers, once-a-second windows) read apart from the same dump: the main
 *   thread's timers phase (`uv__run_timers`, inclusive) is out of the per-request figure and
 *   charged separately, a second, at CHARGE_REQUESTS_PER_SECOND.
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
const settings = () => ({
  requests: setting('BENCH_CALLGRIND_REQUESTS', 500),
  batches: setting('BENCH_CALLGRIND_BATCHES', 12),
  rounds: setting('BENCH_CALLGRIND_ROUNDS', 3),
  /** Fresh processes a variant within a round, side by side: on a busy machine two at once take the time of one. */
  replicas: setting('BENCH_CALLGRIND_REPLICAS', 1),
  warmup: setting('BENCH_CALLGRIND_WARMUP', 20_000),
  connections: setting('BENCH_CALLGRIND_CONNECTIONS', 1),
  idleSeconds: setting('BENCH_CALLGRIND_IDLE_SECONDS', 10),
  forcedCollections: forcingCollections(),
});
/** Instrumented requests after instrumentation is switched on, before the first zero (callgrind retranslates everything). */
const INSTRUMENTED_WARMUP_REQUESTS = 300;
/** A process under valgrind on a busy machine can stall for a long time (instrumentation switched on, GC). */
const REQUEST_TIMEOUT_MS = 300_000;
const START_UNDER_VALGRIND_MS = 300_000;
/** How closely the processes' figures must agree for a verdict: ±1.5 % (valgrind's repeatability). */
const REPEAT_WITHIN = 0.03;
/**
 * The request rate at which the time-driven difference (Ir a second) is charged to requests in the
 * verdict: low for a data plane under load, so it overstates what once-a-second work costs.
 */
export const CHARGE_REQUESTS_PER_SECOND = 1000;

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

/** `count` GETs over `connections` keep-alive connections, each one waiting for its previous answer; every answer must be 200. */
async function sendRequests(origin: string, path: string, count: number, connections: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const started = process.hrtime.bigint();
  let next = 0;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = http.get(origin + path, { agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${origin}${path} answered ${res.statusCode}`))));
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
    `${s0.rounds} rounds of fresh processes (BENCH_CALLGRIND_ROUNDS), ${s0.warmup} uninstrumented warm-up requests (BENCH_CALLGRIND_WARMUP), then ${s0.batches} ` +
    `batches (BENCH_CALLGRIND_BATCHES) of ${s0.requests} sequential GETs on one keep-alive connection (BENCH_CALLGRIND_REQUESTS), ` +
    `${s0.forcedCollections ? 'each after a full collection counted apart (BENCH_CALLGRIND_FORCED_GC=1), ' : 'back to back (BENCH_CALLGRIND_FORCED_GC=1 forces a full collection before each), '}` +
    `and ${s0.idleSeconds} s without traffic. Per process the median batch, less the timers phase; the mean of the batches and the collector's figures beside it. ` +
    `${COMPILATION_COUNTED ? 'TurboFan compilations counted (BENCH_CALLGRIND_COUNT_COMPILATION=1). ' : 'TurboFan compilations not counted (callgrind --toggle-collect; BENCH_CALLGRIND_COUNT_COMPILATION=1 counts them). '}Goal: ${goalsOf(spec).map((g) => `${g.description} >= ${g.atLeast.toFixed(3)}`).join('; ')}, the time-driven difference ` +
    `charged at ${CHARGE_REQUESTS_PER_SECOND} requests a second. Ignores --duration, --rounds and --connections.`;

  /** One round: a fresh process per variant and replica; one map (variant -> counts) per replica. */
  async function round(ctx: HarnessContext, env: Env, r: number): Promise<Array<Map<string, ProcessCount>>> {
    const s = settings();
    const variants = spec.variants.filter((v) => ctx.variantSelected(spec.name, v.name));
    const outDir = dumpDir();
    const started: Array<{ variant: InstructionVariant; replica: number; key: string; server: ServerProcess; callgrind: CallgrindProcess; gc: ForcedGc }> = [];
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
        started.push({ variant, replica, key: name, server, callgrind: new CallgrindProcess(server.pid, outDir.path, name), gc: new ForcedGc(server.process, REQUEST_TIMEOUT_MS) });
      }
      // The variants run side by side: a count does not depend on what else the machine does (only
      // the timers phase does, and it is counted apart), and a shared machine gives each process a share.
      await Promise.all(
        started.map(async (p) => {
          await sendRequests(p.server.origin, spec.path, s.warmup, s.connections);
          p.callgrind.instrument();
          await sendRequests(p.server.origin, spec.path, INSTRUMENTED_WARMUP_REQUESTS, s.connections);
        }),
      );
      const batches = new Map<string, Batch[]>(started.map((p) => [p.key, []]));
      const collections = new Map<string, Collection[]>(started.map((p) => [p.key, []]));
      // A full collection counted on its own: the next batch starts from a collected heap.
      const collect = async (p: (typeof started)[number]): Promise<void> => {
        p.callgrind.zero();
        const heap = await p.gc.collect();
        collections.get(p.key)?.push({ ...heap, count: p.callgrind.dump() });
      };
      for (let b = 0; b < s.batches; b += 1) {
        await Promise.all(
          started.map(async (p) => {
            if (s.forcedCollections) await collect(p);
            p.callgrind.zero();
            const seconds = await sendRequests(p.server.origin, spec.path, s.requests, s.connections);
            batches.get(p.key)?.push({ count: p.callgrind.dump(), seconds });
          }),
        );
      }
      if (s.forcedCollections) await Promise.all(started.map(collect));
      for (const p of started) p.callgrind.zero();
      const idleStarted = process.hrtime.bigint();
      await new Promise((resolve) => setTimeout(resolve, s.idleSeconds * 1000));
      const counts = Array.from({ length: s.replicas }, () => new Map<string, ProcessCount>());
      for (const p of started) {
        const idle = { count: p.callgrind.dump(), seconds: Number(process.hrtime.bigint() - idleStarted) / 1e9 };
        const count: ProcessCount = { batches: batches.get(p.key) ?? [], collections: collections.get(p.key) ?? [], idle };
        counts[p.replica]?.set(p.variant.name, count);
        ctx.log(
          `round ${r}${s.replicas > 1 ? ` process ${p.replica + 1}` : ''} ${p.variant.name}: batches ${count.batches.map((bt) => `${formatNumber(batchNet(bt, s.requests))} (${bt.seconds.toFixed(0)} s, gc ${percent(bt.count.gc / bt.count.all)}, ${percent(bt.count.compile / bt.count.all)} compiling)`).join(', ')} Ir/request; ` +
            `median ${formatNumber(processMedian(count, s.requests))}, mean ${formatNumber(processMean(count, s.requests))}, main thread median ${formatNumber(processMedian(count, s.requests, 'main'))}; ` +
            `full collections ${count.collections.map((c) => formatNumber(c.count.gc)).join(', ')} Ir; old generation ${formatNumber(oldGenerationBytesPerRequest(count, s.requests))} B/request; ` +
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
        `${valgrind.version}; node ${CALLGRIND_NODE_FLAGS.join(' ')}; ${s.rounds} rounds x ${s.replicas} process(es) of ${s.batches} x ${s.requests} requests per variant over ${s.connections} connection(s); ` +
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
  const figure = (p: ProcessCount): number => processMedian(p, s.requests);
  const rows = ran.map((v) => {
    const processes = processesOf(v.name);
    const over = (pick: (p: ProcessCount) => number): number => median(processes.map(pick));
    return [
      v.label,
      formatNumber(over(figure)),
      percent(relativeSpread(processes.map(figure))),
      percent(median(processes.map((p) => relativeSpread(p.batches.map((b) => batchNet(b, s.requests)))))),
      formatNumber(over((p) => processMean(p, s.requests))),
      percent(relativeSpread(processes.map((p) => processMean(p, s.requests)))),
      percent(over(gcShare)),
      formatNumber(over((p) => oldGenerationBytesPerRequest(p, s.requests))),
      formatNumber(over(fullCollectionInstructions)),
      formatNumber(over((p) => processMeanWithCollections(p, s.requests))),
      formatNumber(over((p) => processMedian(p, s.requests, 'main'))),
      formatNumber(over(busyTimersRate)),
      formatNumber(over(idleTimersRate)),
      percent(Math.max(...processes.map(lastCompileShare))),
    ];
  });
  // Verdict rule, per goal: each variant's processes agree (at least two of them), TurboFan is out
  // of the batches, and every round's ratio falls on the same side of the goal (a goal closer than
  // the noise gets none).
  const repeatsOf = (v: string): boolean => rounds.length >= 2 && relativeSpread(processesOf(v).map(figure)) <= REPEAT_WITHIN;
  const compiled = rounds.every((r) => [...r.values()].every((p) => lastCompileShare(p) <= COMPILING_AT_MOST));
  const list = (values: number[]): string => values.map((v) => v.toFixed(4)).join(', ');
  const evaluated = goalsOf(spec).map((g) => {
    const ranBoth = ran.some((v) => v.name === g.baseline) && ran.some((v) => v.name === g.variant);
    const ratiosOf = (pick: (p: ProcessCount) => number): number[] => (ranBoth ? rounds.map((r) => pick(of(r, g.baseline)) / pick(of(r, g.variant))) : []);
    // The clock's extra work for the goal's variant: the larger of its busy and idle difference
    // (under valgrind a busy loop fires 10 ms timers less often than at full speed, an idle one has an empty window).
    const timeDrivenOf = (r: Map<string, ProcessCount>): number => {
      const base = of(r, g.baseline);
      const variant = of(r, g.variant);
      return Math.max(0, busyTimersRate(variant) - busyTimersRate(base), idleTimersRate(variant) - idleTimersRate(base));
    };
    const timeDriven = ranBoth ? median(rounds.map(timeDrivenOf)) : Number.NaN;
    // The goal's figure: the median batch plus the time-driven difference charged at CHARGE_REQUESTS_PER_SECOND.
    const verdictRatios = ranBoth ? rounds.map((r) => figure(of(r, g.baseline)) / (figure(of(r, g.variant)) + timeDrivenOf(r) / CHARGE_REQUESTS_PER_SECOND)) : [];
    const ratios = {
      medianBatch: ratiosOf(figure),
      meanOfBatches: ratiosOf((p) => processMean(p, s.requests)),
      withFullCollections: ratiosOf((p) => processMeanWithCollections(p, s.requests)),
      mainThread: ratiosOf((p) => processMedian(p, s.requests, 'main')),
      withTimers: ratiosOf((p) => processGross(p, s.requests)),
      goal: verdictRatios,
    };
    const repeats = ranBoth && repeatsOf(g.baseline) && repeatsOf(g.variant);
    const decisive = verdictRatios.every((x) => x >= g.atLeast) || verdictRatios.every((x) => x < g.atLeast);
    const value = ranBoth ? median(verdictRatios) : undefined;
    const check: GoalCheck = {
      description:
        `${g.description} (callgrind)` +
        (repeats ? '' : rounds.length < 2 ? ' — one process a variant, nothing shows it repeats, so no verdict' : ` — processes of one variant disagree by more than ${REPEAT_WITHIN * 100} %, so no verdict`) +
        (compiled ? '' : ` — TurboFan was above ${COMPILING_AT_MOST * 100} % of a last batch (raise BENCH_CALLGRIND_WARMUP), so no verdict`) +
        (decisive ? '' : ' — the rounds fall on both sides of the goal, so no verdict'),
      value,
      atLeast: g.atLeast,
      ...(verdictRatios.length > 0 ? { rounds: { low: Math.min(...verdictRatios), high: Math.max(...verdictRatios), used: verdictRatios.length, total: verdictRatios.length } } : {}),
      met: value !== undefined && repeats && compiled && decisive ? value >= g.atLeast : undefined,
    };
    const markdown = ranBoth
      ? `${g.baseline}/${g.variant} per round, median batches: ${list(ratios.medianBatch)} (means of the batches: ${list(ratios.meanOfBatches)}; ` +
        `with a full collection a batch: ${list(ratios.withFullCollections)}; main thread only: ${list(ratios.mainThread)}; timers phase left in: ${list(ratios.withTimers)}). ` +
        `Time-driven work: ${formatNumber(timeDriven)} Ir/s more for ${g.variant} (the larger of the busy and idle differences), charged at ${CHARGE_REQUESTS_PER_SECOND} ` +
        `requests a second in the goal's ratio: ${list(verdictRatios)}.`
      : '';
    return { goal: g, check, ratios, timeDriven, markdown };
  });
  const markdown = [
    markdownTable(
      [
        'variant',
        'Ir / request (median batch)',
        'spread over processes',
        'spread over batches (median process)',
        'Ir / request (mean of batches)',
        'spread of means over processes',
        'GC share of batches',
        'old generation B / request',
        'full collection Ir',
        'Ir / request, mean with a full collection a batch',
        'main thread Ir / request',
        'timers Ir / s, busy',
        'timers Ir / s, idle',
        'TurboFan share, last batch',
      ],
      rows,
    ),
    '',
    `${s.rounds} rounds x ${s.replicas} process(es) a variant side by side (fresh processes each) x ${s.batches} batches of ${s.requests} sequential requests over ${s.connections} keep-alive connection(s) per variant, ` +
      `${s.forcedCollections ? 'each after a full collection forced and counted apart' : 'back to back, no forced collection'}; ` +
      `node ${CALLGRIND_NODE_FLAGS.join(' ')}; ${valgrindVersionText}; TurboFan's compilations ${COMPILATION_COUNTED ? 'counted' : 'not counted (--toggle-collect)'}. ` +
      'Ir / request: every thread less the main thread\'s timers phase (uv__run_timers: what the clock drives), the median batch of a process, median of the processes ' +
      '(the verdict\'s figure); the mean of the batches has every collection that fell into them. GC share: Heap::CollectGarbage and IncrementalMarking::Step (inclusive) ' +
      'in the batches. Old generation B / request: what the batches added to the old generation between the collections around them. Full collection Ir: one forced ' +
      'collection; the column after it charges one to every batch, far more often than a process collects on its own (an upper bound). ' +
      `Timers Ir / s: that phase a second during the batches and during ${s.idleSeconds} s without traffic. Spread: (max - min) / median. ` +
      `A verdict needs each variant's processes within ${REPEAT_WITHIN * 100} % and every round on the same side of the goal.`,
    '',
    ...evaluated.flatMap((e) => (e.markdown === '' ? [] : [e.markdown, ''])),
    ...(extra ? [extra.markdown, ''] : []),
    ...evaluated.map((e) => formatGoal(e.check)),
    '',
  ].join('\n');
  const data: JsonValue = {
    valgrind: valgrindVersionText,
    nodeFlags: [...CALLGRIND_NODE_FLAGS],
    settings: s,
    rounds: rounds.map((r) =>
      Object.fromEntries(
        [...r].map(([name, p]) => [
          name,
          {
            idle: { ...p.idle.count, seconds: p.idle.seconds },
            batches: p.batches.map((b) => ({ ...b.count, seconds: b.seconds })),
            collections: p.collections.map((c) => ({ ...c.count, oldGenerationBefore: c.oldGenerationBefore, oldGenerationAfter: c.oldGenerationAfter })),
          },
        ]),
      ),
    ),
    goals: evaluated.map((e) => ({ baseline: e.goal.baseline, variant: e.goal.variant, ratios: e.ratios, timeDrivenInstructionsPerSecond: e.timeDriven })),
    ...(extra ? { extra: extra.data } : {}),
  };
  return { name: spec.name, title: spec.title, markdown, goals: evaluated.map((e) => e.check), data };
}
