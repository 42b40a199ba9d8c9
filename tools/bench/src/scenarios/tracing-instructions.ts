import http from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { makeTempDir, shebangNodeFlags } from '@gateway/testing';
import path from 'node:path';
import { CallgrindProcess, callgrindWrapper, countInstructions, valgrindVersion } from '../harness/callgrind';
import { startGateway } from '../harness/gateway';
import { formatGoal, formatNumber, markdownTable } from '../harness/report';
import { median as medianOrUndefined } from '../harness/stats';
import type { GoalCheck, HarnessContext, JsonValue, Scenario, ScenarioResult } from '../harness/types';
import { prepareTracingBench, TRACING_BENCH_PATH, tracingConfig, type TracingBenchEnv } from './tracing';

/** The knobs of telemetry-instructions, read the same way (one set of BENCH_CALLGRIND_* for both). */
const REQUESTS = Number(process.env['BENCH_CALLGRIND_REQUESTS'] ?? 1000);
const BATCHES = Number(process.env['BENCH_CALLGRIND_BATCHES'] ?? 4);
const ROUNDS = Number(process.env['BENCH_CALLGRIND_ROUNDS'] ?? 3);
/**
 * `apps/cli/bin/gateway.js` of a build without tracing (a checkout of the commit before it): the
 * baseline for "tracing off costs at most 1 %". Without it only off vs 10 % is counted.
 */
const BASELINE_BIN = process.env['BENCH_TRACING_BASELINE_BIN'];
const WARMUP_REQUESTS = 4000;
const INSTRUMENTED_WARMUP_REQUESTS = 500;
const CONNECTIONS = 4;
const START_UNDER_VALGRIND_MS = 300_000;
const REQUEST_TIMEOUT_MS = 300_000;
/** Under valgrind on a busy machine a request can outlast the default header and upstream deadlines. */
const SLOW_PROCESS_PROXY = ['  headersTimeout: 600000', '  requestTimeout: 600000', '  keepAliveTimeout: 600000'];
const SLOW_PROCESS_ROUTE = ', timeout: { connect: 60000, request: 60000 }';
/** Issue 18: tracing off at most 1 % more instructions than without tracing; 10 % sampling at most 5 % more than off. */
const OFF_AT_LEAST = 1 / 1.01;
const SAMPLED_AT_LEAST = 1 / 1.05;
/** How closely the processes' counts must agree for a verdict on a 1 % goal. */
const REPEAT_WITHIN = 0.01;

type Variant = 'baseline' | 'off' | 'sampled-10';
/** Calls of the tracing hooks alone in the short and the long run; their difference cancels node's start-up. */
const HOOK_CALLS = [10_000, 60_000] as const;
const HOOK_REPEATS = 2;
const HOOK_MODES = ['propagate', 'export-10'] as const;
type HookMode = (typeof HOOK_MODES)[number];

const median = (values: readonly number[]): number => medianOrUndefined(values) ?? Number.NaN;
const spread = (values: readonly number[]): number => (Math.max(...values) - Math.min(...values)) / median(values);

/** `count` GETs over CONNECTIONS keep-alive connections; every answer must be 200. */
async function sendRequests(origin: string, count: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let next = 0;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = http.get(origin + TRACING_BENCH_PATH, { agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${origin}${TRACING_BENCH_PATH} answered ${res.statusCode}`))));
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
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
}

/**
 * Instructions a request of the tracing hooks alone (servers/tracing-hook-loop.ts): (long run - short
 * run) / calls between them, per repeat. `export-10` includes building and exporting the sampled
 * tenth as OTLP spans (the collector is a child process valgrind does not count).
 */
async function hookInstructions(ctx: HarnessContext, mode: HookMode): Promise<number[]> {
  const script = path.join(__dirname, '..', 'servers', 'tracing-hook-loop.js');
  const outDir = makeTempDir('gateway-bench-callgrind-tracing-hook-');
  try {
    const perCall: number[] = [];
    for (let r = 0; r < HOOK_REPEATS; r += 1) {
      const [short, long] = await Promise.all(HOOK_CALLS.map((n) => countInstructions(outDir.path, `${mode}-${r}-${n}`, script, [String(n), mode])));
      perCall.push(((long as number) - (short as number)) / (HOOK_CALLS[1] - HOOK_CALLS[0]));
      ctx.log(`tracing hooks alone (${mode}), repeat ${r + 1}: ${formatNumber(perCall.at(-1), 0)} Ir a request`);
    }
    return perCall;
  } finally {
    outDir.remove();
  }
}

/** Instructions per request of each counted batch of one fresh process under callgrind. */
async function countVariant(ctx: HarnessContext, env: TracingBenchEnv, variant: Variant, round: number): Promise<number[]> {
  const outDir = makeTempDir('gateway-bench-callgrind-');
  const name = `dp-tracing-${variant}-r${round}`;
  try {
    const config = tracingConfig(env.upstream.origin, env.collector, variant === 'sampled-10' ? 'sampled-10' : 'off', SLOW_PROCESS_PROXY, SLOW_PROCESS_ROUTE);
    const command = variant === 'baseline' && BASELINE_BIN !== undefined ? [...shebangNodeFlags(readFileSync(BASELINE_BIN, 'utf8')), BASELINE_BIN] : undefined;
    const dp = await startGateway(ctx, name, 'data-plane', config, {}, { wrapper: callgrindWrapper(outDir.path, name), startTimeoutMs: START_UNDER_VALGRIND_MS, ...(command === undefined ? {} : { command }) });
    const callgrind = new CallgrindProcess(dp.pid, outDir.path, name);
    await sendRequests(dp.origin, WARMUP_REQUESTS);
    callgrind.instrument();
    await sendRequests(dp.origin, INSTRUMENTED_WARMUP_REQUESTS);
    const perRequest: number[] = [];
    for (let b = 0; b < BATCHES; b += 1) {
      callgrind.zero();
      await sendRequests(dp.origin, REQUESTS);
      perRequest.push(callgrind.dump().all / REQUESTS);
    }
    await dp.process.stop();
    ctx.log(`round ${round} ${variant}: ${perRequest.map((n) => formatNumber(n)).join(', ')} Ir/request`);
    return perRequest;
  } finally {
    outDir.remove();
  }
}

/**
 * Instructions a request with tracing off and with 10 % of traces exported (issue 18), and, given
 * BENCH_TRACING_BASELINE_BIN, of a build without tracing: data planes on proxy.yml under
 * valgrind's callgrind at the same time, a fresh set each round, the harness of
 * telemetry-instructions (uninstrumented warm-up, then counted batches zeroed before and dumped
 * after). A figure is the median of a process's batches, then of the rounds; a verdict needs the
 * processes of each variant to agree within 1 % (the smaller goal).
 */
export const tracingInstructionsScenario: Scenario = {
  name: 'tracing-instructions',
  title: 'Tracing off vs 10 % exported (vs a build without tracing): instructions per request under callgrind',
  description:
    `Data planes on proxy.yml under valgrind --tool=callgrind, ${ROUNDS} rounds of fresh processes (BENCH_CALLGRIND_ROUNDS), ${WARMUP_REQUESTS} uninstrumented ` +
    `warm-up requests, then ${BATCHES} counted batches of ${REQUESTS} GETs of 100 B (BENCH_CALLGRIND_BATCHES, BENCH_CALLGRIND_REQUESTS) over ${CONNECTIONS} connections. ` +
    'Variants: tracing off; trace context on with 10 % exported over OTLP/HTTP to a loopback collector; with BENCH_TRACING_BASELINE_BIN=<apps/cli/bin/gateway.js of a build ' +
    'without tracing>, that build. Goals: baseline/off >= 1/1.01 (off costs at most 1 % more), off/sampled-10 >= 1/1.05. Ignores --duration, --rounds and --connections.',
  variantNames: ['baseline', 'off', 'sampled-10'],
  run: async (ctx: HarnessContext): Promise<ScenarioResult> => {
    const { name, title } = tracingInstructionsScenario;
    const valgrind = valgrindVersion();
    const offGoal = (value: number | undefined, met: boolean | undefined, note = ''): GoalCheck => ({ description: `tracing off vs a build without tracing, instructions per request (baseline/off)${note}`, value, atLeast: OFF_AT_LEAST, met });
    if (!valgrind.available) {
      const sampledGoal: GoalCheck = { description: 'instructions per request, off/sampled-10', value: undefined, atLeast: SAMPLED_AT_LEAST, met: undefined };
      return { name, title, markdown: `valgrind unavailable: ${valgrind.reason}\n`, goals: [offGoal(undefined, undefined), sampledGoal], data: { error: valgrind.reason } };
    }
    if (BASELINE_BIN !== undefined && !existsSync(BASELINE_BIN)) throw new Error(`BENCH_TRACING_BASELINE_BIN=${BASELINE_BIN} does not exist`);
    const variants: Variant[] = (['baseline', 'off', 'sampled-10'] as const).filter((v) => (v !== 'baseline' || BASELINE_BIN !== undefined) && ctx.variantSelected(name, v));
    ctx.log(`${valgrind.version}; ${ROUNDS} rounds of ${BATCHES} x ${REQUESTS} requests per variant (${variants.join(', ')})`);
    const hooks = {} as Record<HookMode, number[]>;
    for (const mode of HOOK_MODES) hooks[mode] = await hookInstructions(ctx, mode);
    const { env } = await prepareTracingBench(ctx);
    const rounds: Array<Partial<Record<Variant, number[]>>> = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const counted = await Promise.all(variants.map((v) => countVariant(ctx, env, v, round)));
      rounds.push(Object.fromEntries(variants.map((v, i) => [v, counted[i]])));
    }
    const processFigures = (v: Variant): number[] => rounds.map((r) => median(r[v] ?? []));
    const figure = (v: Variant): number => median(processFigures(v));
    const repeats = (vs: readonly Variant[]): boolean => vs.every((v) => spread(processFigures(v)) <= REPEAT_WITHIN);
    const ratio = (base: Variant, other: Variant): number => median(rounds.map((r) => median(r[base] ?? []) / median(r[other] ?? [])));
    const goals: GoalCheck[] = [];
    const noVerdict = ` — counts did not repeat within ${REPEAT_WITHIN * 100} % across processes, so no verdict`;
    if (variants.includes('baseline') && variants.includes('off')) {
      const value = ratio('baseline', 'off');
      const ok = repeats(['baseline', 'off']);
      goals.push(offGoal(value, ok ? value >= OFF_AT_LEAST : undefined, ok ? '' : noVerdict));
    } else goals.push(offGoal(undefined, undefined, ' — no BENCH_TRACING_BASELINE_BIN given'));
    if (variants.includes('off') && variants.includes('sampled-10')) {
      const value = ratio('off', 'sampled-10');
      const ok = repeats(['off', 'sampled-10']);
      goals.push({ description: `10 % sampling vs tracing off, instructions per request (off/sampled-10)${ok ? '' : noVerdict}`, value, atLeast: SAMPLED_AT_LEAST, met: ok ? value >= SAMPLED_AT_LEAST : undefined });
    }
    // The hooks alone repeat where whole processes do not: their share of a tracing-off request.
    const offRequest = variants.includes('off') ? figure('off') : Number.NaN;
    const hookShare = (mode: HookMode): number => median(hooks[mode]) / offRequest;
    goals.push({
      description: 'off/sampled-10 from the tracing hooks alone at 10 % sampling (trace context, spans built and exported) added to a tracing-off request',
      value: 1 / (1 + hookShare('export-10')),
      atLeast: SAMPLED_AT_LEAST,
      met: Number.isFinite(offRequest) ? 1 / (1 + hookShare('export-10')) >= SAMPLED_AT_LEAST : undefined,
    });
    const rows = variants.map((v) => [v, formatNumber(figure(v)), `${(spread(processFigures(v)) * 100).toFixed(1)} %`, `${(spread(rounds.flatMap((r) => r[v] ?? [])) * 100).toFixed(1)} %`]);
    const markdown = [
      markdownTable(['variant', 'Ir / request', 'spread over processes', 'spread over all batches'], rows),
      '',
      `${ROUNDS} rounds x ${BATCHES} batches of ${REQUESTS} requests per variant; ${valgrind.version}. Per process: the median of its batches; per variant: the median of the rounds.`,
      '',
      `The tracing hooks alone (a ${HOOK_CALLS[1]}-call run less a ${HOOK_CALLS[0]}-call one, so node's start-up cancels out, ${HOOK_REPEATS} repeats): ` +
        HOOK_MODES.map((m) => `${m} ${hooks[m].map((n) => formatNumber(n)).join(', ')} Ir a request (${(hookShare(m) * 100).toFixed(2)} % of a tracing-off request)`).join('; ') +
        '. With tracing off no hook is compiled into the pipeline: what is left per request is one more field initialised on each exchange.',
      '',
      ...goals.map(formatGoal),
      '',
    ].join('\n');
    const data: JsonValue = { valgrind: valgrind.version, requestsPerBatch: REQUESTS, batches: BATCHES, baselineBin: BASELINE_BIN ?? null, rounds: rounds as JsonValue, hookInstructionsPerRequest: hooks };
    return { name, title, markdown, goals, data };
  },
};
