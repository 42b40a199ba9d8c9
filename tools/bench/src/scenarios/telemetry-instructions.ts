import http from 'node:http';
import { makeTempDir } from '@gateway/testing';
import path from 'node:path';
import { CallgrindProcess, callgrindWrapper, countInstructions, valgrindVersion } from '../harness/callgrind';
import { formatGoal, formatNumber, markdownTable } from '../harness/report';
import { median as medianOrUndefined } from '../harness/stats';
import type { GoalCheck, HarnessContext, JsonValue, Scenario, ScenarioResult } from '../harness/types';
import { prepareTelemetryBench, TELEMETRY_BENCH_PATH, telemetryFollower } from './telemetry';

/**
 * Requests a counted batch, and batches a process: a process's figure is the median of its batches
 * (a batch that holds a major GC or a late optimisation counts more), the spread shows how well they repeat.
 */
const REQUESTS = Number(process.env['BENCH_CALLGRIND_REQUESTS'] ?? 1000);
const BATCHES = Number(process.env['BENCH_CALLGRIND_BATCHES'] ?? 4);
/** Fresh processes a variant (one a round); ignores --rounds (under valgrind a round takes minutes). */
const ROUNDS = Number(process.env['BENCH_CALLGRIND_ROUNDS'] ?? 3);
/** Uninstrumented requests first (V8 tiers functions up by call counts), then instrumented ones before the count. */
const WARMUP_REQUESTS = 4000;
const INSTRUMENTED_WARMUP_REQUESTS = 500;
const CONNECTIONS = 4;
/** Seconds without traffic, counted apart: the time-driven work (timers, the telemetry window a second). */
const IDLE_SECONDS = 10;
const START_UNDER_VALGRIND_MS = 300_000;
/**
 * The data plane's own deadlines, raised: under valgrind on a busy machine a request can take
 * longer than the default 10 s for its headers (408) or the route's upstream timeouts (504).
 */
const SLOW_PROCESS_ROUTE = { timeout: { connect: 60_000, request: 60_000 } };
const SLOW_PROCESS_PROXY_YAML = 'version: "1.0.0"\nproxy:\n  headersTimeout: 600000\n  requestTimeout: 600000\n  keepAliveTimeout: 600000\nroutes: []\n';
/** A process under valgrind on a busy machine can stall for a long time (instrumentation switched on, GC). */
const REQUEST_TIMEOUT_MS = 300_000;
const GOAL_AT_LEAST = 0.97;
/** How closely the processes' counts must agree for a verdict (valgrind repeats within ~1.5 % on a quiet machine). */
const REPEAT_WITHIN = 0.03;
/** Calls of the telemetry hook alone in the short and the long run; their difference cancels node's start-up. */
const HOOK_CALLS = [100_000, 1_100_000] as const;
const HOOK_REPEATS = 2;

/** Instructions of one call of the telemetry hook: (long run - short run) / calls between them, per repeat. */
async function hookInstructions(ctx: HarnessContext): Promise<number[]> {
  const script = path.join(__dirname, '..', 'servers', 'telemetry-hook-loop.js');
  const outDir = makeTempDir('gateway-bench-callgrind-hook-');
  try {
    const perCall: number[] = [];
    for (let r = 0; r < HOOK_REPEATS; r += 1) {
      const [short, long] = await Promise.all(HOOK_CALLS.map((n) => countInstructions(outDir.path, `hook-${r}-${n}`, script, [String(n)])));
      perCall.push(((long as number) - (short as number)) / (HOOK_CALLS[1] - HOOK_CALLS[0]));
      ctx.log(`telemetry hook alone, repeat ${r + 1}: ${formatNumber(perCall.at(-1), 0)} Ir a call`);
    }
    return perCall;
  } finally {
    outDir.remove();
  }
}
const VARIANTS = ['off', 'on'] as const;
type Variant = (typeof VARIANTS)[number];

const median = (values: readonly number[]): number => medianOrUndefined(values) ?? Number.NaN;

/** `count` GETs of the bench path over `CONNECTIONS` keep-alive connections; every answer must be 200. */
async function sendRequests(origin: string, count: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const started = process.hrtime.bigint();
  let next = 0;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = http.get(origin + TELEMETRY_BENCH_PATH, { agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${origin}${TELEMETRY_BENCH_PATH} answered ${res.statusCode}`))));
      });
      req.on('timeout', () => req.destroy(new Error(`${origin}${TELEMETRY_BENCH_PATH} did not answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', reject);
    });
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      await one();
    }
  };
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  } finally {
    agent.destroy();
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

interface Batch {
  readonly instructions: number;
  readonly seconds: number;
}

interface VariantRound {
  readonly batches: readonly Batch[];
  /** Instructions a second with no traffic (timers; with telemetry on, the window a second). */
  readonly idlePerSecond: number;
}

const perRequest = (b: Batch): number => b.instructions / REQUESTS;
/** A batch's instructions without the time-driven work of the seconds it took (idle rate of the same process). */
const perRequestNet = (b: Batch, idlePerSecond: number): number => (b.instructions - idlePerSecond * b.seconds) / REQUESTS;

async function measureVariant(ctx: HarnessContext, env: Awaited<ReturnType<typeof prepareTelemetryBench>>['env'], variant: Variant, round: number): Promise<VariantRound> {
  const outDir = makeTempDir('gateway-bench-callgrind-');
  const name = `dp-telemetry-${variant}-r${round}`;
  try {
    const dp = await telemetryFollower(env, ctx, name, variant, { wrapper: callgrindWrapper(outDir.path, name), startTimeoutMs: START_UNDER_VALGRIND_MS }, SLOW_PROCESS_PROXY_YAML);
    const callgrind = new CallgrindProcess(dp.process.pid, outDir.path, name);
    await sendRequests(dp.origin, WARMUP_REQUESTS);
    callgrind.instrument();
    await sendRequests(dp.origin, INSTRUMENTED_WARMUP_REQUESTS);
    const batches: Batch[] = [];
    for (let b = 0; b < BATCHES; b += 1) {
      callgrind.zero();
      const seconds = await sendRequests(dp.origin, REQUESTS);
      batches.push({ instructions: callgrind.dump(), seconds });
    }
    callgrind.zero();
    const idleStarted = process.hrtime.bigint();
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const idle = callgrind.dump();
    const idlePerSecond = idle / (Number(process.hrtime.bigint() - idleStarted) / 1e9);
    await dp.process.process.stop();
    ctx.log(
      `round ${round} ${variant}: ${batches.map((b) => `${formatNumber(perRequestNet(b, idlePerSecond))} (${formatNumber(perRequest(b))} with idle work, ${b.seconds.toFixed(1)} s)`).join(', ')} Ir/request; idle ${formatNumber(idlePerSecond)} Ir/s`,
    );
    return { batches, idlePerSecond };
  } finally {
    outDir.remove();
  }
}

/**
 * Instructions a request with cluster telemetry on vs off (issue 12's goal: at most 3 % more),
 * counted by valgrind's callgrind, which repeats within about 1 % where CPU time on a shared VM
 * does not. Both data planes follow one control plane over Redis and run under callgrind at the
 * same time, fresh processes each round; JIT warm-up runs uninstrumented, then each process counts
 * BATCHES batches of REQUESTS requests (zeroed before, dumped after: no startup in the count) and
 * an idle spell, whose rate is taken off each batch: the once-a-second work is reported apart.
 */
export const telemetryInstructionsScenario: Scenario = {
  name: 'telemetry-instructions',
  title: 'Cluster telemetry on vs off: instructions per request under callgrind',
  description:
    `Two data planes following one control plane over Redis (GATEWAY_TELEMETRY=off and on) run under valgrind --tool=callgrind, ` +
    `${ROUNDS} rounds of fresh processes (BENCH_CALLGRIND_ROUNDS), ${WARMUP_REQUESTS} uninstrumented warm-up requests, then ${BATCHES} counted batches ` +
    `of ${REQUESTS} GETs of 100 B (BENCH_CALLGRIND_REQUESTS) over ${CONNECTIONS} keep-alive connections, and ${IDLE_SECONDS} s without traffic whose rate ` +
    `is taken off the batches (the once-a-second work, reported apart). First, the telemetry hook alone is counted (a 1,100,000-call run less a 100,000-call one, twice). Goal: off/on instructions per request >= ${GOAL_AT_LEAST} (at most 3 % more with telemetry on). Ignores --duration, --rounds and --connections; ` +
    `run it beside --only telemetry --rounds 21 for the requests-per-CPU-second ratio.`,
  variantNames: [...VARIANTS],
  run: async (ctx: HarnessContext): Promise<ScenarioResult> => {
    const valgrind = valgrindVersion();
    if (!valgrind.available) {
      const goal: GoalCheck = { description: 'telemetry instructions per request, off/on', value: undefined, atLeast: GOAL_AT_LEAST, met: undefined };
      return { name: telemetryInstructionsScenario.name, title: telemetryInstructionsScenario.title, markdown: `valgrind unavailable: ${valgrind.reason}\n`, goals: [goal], data: { error: valgrind.reason } };
    }
    ctx.log(`${valgrind.version}; ${ROUNDS} rounds of ${BATCHES} x ${REQUESTS} requests per variant`);
    const hook = await hookInstructions(ctx);
    const { env } = await prepareTelemetryBench(ctx, SLOW_PROCESS_ROUTE);
    const rounds: Array<Record<Variant, VariantRound>> = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const [off, on] = await Promise.all(VARIANTS.map((variant) => measureVariant(ctx, env, variant, round)));
      rounds.push({ off: off as VariantRound, on: on as VariantRound });
    }

    // A process's figure: the median of its batches; a round's ratio: its two processes side by side.
    const figure = (r: VariantRound, pick: (b: Batch) => number): number => median(r.batches.map(pick));
    const net = (r: VariantRound): number => figure(r, (b) => perRequestNet(b, r.idlePerSecond));
    const gross = (r: VariantRound): number => figure(r, perRequest);
    const netRatios = rounds.map((r) => net(r.off) / net(r.on));
    const grossRatios = rounds.map((r) => gross(r.off) / gross(r.on));
    const spread = (values: number[]): string => `${(((Math.max(...values) - Math.min(...values)) / median(values)) * 100).toFixed(1)} %`;
    const rows = VARIANTS.map((variant) => {
      const processes = rounds.map((r) => r[variant]);
      return [
        `telemetry ${variant}`,
        formatNumber(median(processes.map(net))),
        spread(processes.map(net)),
        spread(processes.flatMap((r) => r.batches.map((b) => perRequestNet(b, r.idlePerSecond)))),
        formatNumber(median(processes.map(gross))),
        formatNumber(median(processes.map((r) => r.idlePerSecond))),
      ];
    });
    const timeDriven = median(rounds.map((r) => r.on.idlePerSecond - r.off.idlePerSecond));
    // A verdict on 3 % needs counts that repeat: both variants' processes within REPEAT_WITHIN of each other.
    const relativeSpread = (values: number[]): number => (Math.max(...values) - Math.min(...values)) / median(values);
    const repeats = VARIANTS.every((v) => relativeSpread(rounds.map((r) => net(r[v]))) <= REPEAT_WITHIN);
    const goal: GoalCheck = {
      description:
        'telemetry instructions per request (callgrind, without the once-a-second work), off/on' +
        (repeats ? '' : ` — counts did not repeat within ${REPEAT_WITHIN * 100} % across processes, so no verdict`),
      value: median(netRatios),
      atLeast: GOAL_AT_LEAST,
      rounds: { low: Math.min(...netRatios), high: Math.max(...netRatios), used: netRatios.length, total: netRatios.length },
      met: repeats ? median(netRatios) >= GOAL_AT_LEAST : undefined,
    };
    const markdown = [
      markdownTable(['variant', 'Ir / request', 'spread over processes', 'spread over all batches', 'Ir / request with the idle work', 'idle Ir / s'], rows),
      '',
      `${ROUNDS} rounds (a fresh pair of processes each) x ${BATCHES} batches of ${REQUESTS} requests per variant; ${valgrind.version}. ` +
        `Ir / request: the batch's instructions less the process's idle rate over the batch's duration, median of the batches, median of the rounds. ` +
        `Off/on per round: ${netRatios.map((r) => r.toFixed(3)).join(', ')}; with the idle work left in: ${grossRatios.map((r) => r.toFixed(3)).join(', ')}. ` +
        `Telemetry's once-a-second work (the window, the event-loop delay monitor): ${formatNumber(timeDriven)} Ir/s more idle with it on, ` +
        'which a process at full speed spreads over thousands of requests a second, and one under valgrind (~50x slower) over a few dozen.',
      '',
      `The telemetry hook alone (the policy's onComplete on a finished 200 exchange, ${HOOK_CALLS[1] - HOOK_CALLS[0]} calls: a ${HOOK_CALLS[1]}-call run less a ` +
        `${HOOK_CALLS[0]}-call one, so node's start-up cancels out): ${hook.map((n) => formatNumber(n)).join(', ')} Ir a call, ` +
        `${((median(hook) / median(rounds.map((r) => net(r.off)))) * 100).toFixed(2)} % of a request of the data plane with telemetry off above.`,
      '',
      formatGoal(goal),
      '',
    ].join('\n');
    const data: JsonValue = {
      valgrind: valgrind.version,
      requestsPerBatch: REQUESTS,
      batches: BATCHES,
      rounds: rounds.map((r) =>
        Object.fromEntries(VARIANTS.map((v) => [v, { idlePerSecond: r[v].idlePerSecond, batches: r[v].batches.map((b) => ({ instructions: b.instructions, seconds: b.seconds })) }])),
      ),
      ratioOffOn: netRatios,
      ratioOffOnWithIdleWork: grossRatios,
      timeDrivenInstructionsPerSecond: timeDriven,
      hookInstructionsPerCall: hook,
    };
    return { name: telemetryInstructionsScenario.name, title: telemetryInstructionsScenario.title, markdown, goals: [goal], data };
  },
};
