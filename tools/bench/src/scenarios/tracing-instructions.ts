import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, shebangNodeFlags } from '@gateway/testing';
import { countInstructions } from '../harness/callgrind';
import { startGateway } from '../harness/gateway';
import { defineInstructionComparison, type InstructionLaunch, type InstructionVariant } from '../harness/instruction-comparison';
import type { ServerProcess } from '../harness/processes';
import { formatNumber } from '../harness/report';
import { median } from '../harness/stats';
import type { HarnessContext, JsonValue } from '../harness/types';
import { prepareTracingBench, TRACING_BENCH_PATH, type TracingBenchEnv } from './tracing';

/**
 * `apps/cli/bin/gateway.js` of a build without tracing: the same commit with the tracing policy out
 * of the registry and the exchange's `trace` field removed (tools/bench/README.md says how), so that
 * nothing but tracing differs. The baseline of `tracing-off-instructions`.
 */
const BASELINE_BIN_VARIABLE = 'BENCH_TRACING_BASELINE_BIN';
/**
 * `apps/cli/bin/gateway.js` of another build with tracing (a branch that changes the span path):
 * `tracing-cost-instructions` adds its 10 % exported variant, against the same `off`.
 */
const OTHER_BIN_VARIABLE = 'BENCH_TRACING_OTHER_BIN';
/** Issue 18: tracing off at most 1 % more instructions than without tracing; 10 % sampling at most 5 % more than off. */
const OFF_AT_LEAST = 1 / 1.01;
const SAMPLED_AT_LEAST = 1 / 1.05;
/**
 * Calls of the tracing hooks alone in the short and the long run; their difference cancels node's
 * start-up. Long runs: at 10 % export the marginal count was 20,305 Ir a request from 20,000 to
 * 60,000 calls (V8 still tiering up the SDK's code), 16,725 from 60,000 to 140,000, 9,436 from
 * 140,000 to 300,000 and 15,090 from 300,000 to 700,000 (a short window reads low, presumably
 * holding fewer of the old-generation collections the spans cause).
 */
const HOOK_CALLS = [300_000, 700_000] as const;
const HOOK_REPEATS = 2;
const HOOK_MODES = ['propagate', 'export-10'] as const;
/**
 * The export at the gateway's defaults (512 spans a batch, a partial batch after 5 s): nothing set
 * here. Until 2026-11-27 19:30 the bench exported every 50 spans so that each export fell inside a
 * counted batch; that charged an export's fixed cost (an OTLP/HTTP request, ~1.3 M Ir) to ten times
 * fewer spans than a gateway at its defaults does (~2.5k Ir a request more, tools/bench/README.md,
 * "Tracing (issue 18): the whole-process gap located"). Under valgrind (20-90 requests a second)
 * the 5 s timer exports whatever is queued, in the timers phase, in the batches and in the idle
 * spell alike, so the fit puts an export's fixed cost in b (per second) and each span's encoding in a
 * (per request). b / 4,000 then charges one export per 5 s where a gateway serving 4,000 requests a
 * second at 10 % sends a full batch every 1.28 s: it understates the export's fixed cost by about
 * 190 Ir a request (0.13 %), which the report states.
 */
const SAMPLED_10: InstructionVariant = {
  name: 'sampled-10',
  label: 'trace context, 10 % exported',
  env: {},
  proxy: { proxy: { tracing: { enabled: true, samplingRatio: 0.1, otlp: { enabled: true } } } },
};
const WITHOUT_TRACING: InstructionVariant = { name: 'without-tracing', label: 'build without tracing', env: {} };
const OFF: InstructionVariant = { name: 'off', label: 'tracing off', env: {} };
const OFF_GOAL = { variant: 'off', atLeast: OFF_AT_LEAST, description: 'instructions per request, without-tracing/off (tracing off at most 1 % more)' };
const SAMPLED_GOAL = { variant: 'sampled-10', atLeast: SAMPLED_AT_LEAST, description: 'instructions per request, off/sampled-10 (10 % sampling at most 5 % more)' };
/** The route's upstream deadlines, raised: under valgrind on a busy machine a request can outlast the defaults (504). */
const SLOW_PROCESS_ROUTE = { timeout: { connect: 60_000, request: 60_000 } };

/**
 * The variant's proxy.yml (the harness's, JSON) with the bench's one route and upstream, and the
 * loopback collector as the OTLP endpoint where the variant exports.
 */
function benchProxyYaml(proxyYaml: string, env: TracingBenchEnv): string {
  const config = JSON.parse(proxyYaml) as { proxy: Record<string, unknown> & { tracing?: { otlp?: Record<string, unknown> } } };
  const { tracing } = config.proxy;
  const proxy = { ...config.proxy, host: '127.0.0.1', ...(tracing?.otlp ? { tracing: { ...tracing, otlp: { ...tracing.otlp, endpoint: env.collector } } } : {}) };
  const file = { ...config, proxy, upstreams: [{ name: 'bench', url: env.upstream.origin }], routes: [{ path: '/api/*', upstream: 'bench', ...SLOW_PROCESS_ROUTE }] };
  return `${JSON.stringify(file, null, 2)}\n`;
}

async function startTracingDataPlane(env: TracingBenchEnv, ctx: HarnessContext, { name, proxyYaml, launch }: InstructionLaunch, command?: readonly string[]): Promise<ServerProcess> {
  return startGateway(ctx, name, 'data-plane', benchProxyYaml(proxyYaml, env), {}, { ...launch, ...(command === undefined ? {} : { command }) });
}

/** The node flags and script of the build a variable names, or an error saying what it must name. */
function buildCommand(variable: string, what: string): string[] {
  const bin = process.env[variable];
  if (bin === undefined || !existsSync(bin)) throw new Error(`${variable} must name apps/cli/bin/gateway.js of ${what} (got ${bin ?? 'nothing'}); see tools/bench/README.md`);
  return [...shebangNodeFlags(readFileSync(bin, 'utf8')), bin];
}
const baselineCommand = (): string[] => buildCommand(BASELINE_BIN_VARIABLE, 'a build without tracing');

/**
 * Instructions a request of the tracing hooks alone (servers/tracing-hook-loop.ts): (long run -
 * short run) / calls between them, per repeat. They repeat to a few Ir where whole processes differ
 * by a percent, so they show what a change in the span path is worth.
 */
async function hookInstructions(ctx: HarnessContext): Promise<{ markdown: string; data: JsonValue }> {
  if (process.env['BENCH_CALLGRIND_HOOK'] === '0') return { markdown: 'The tracing hooks alone: skipped (BENCH_CALLGRIND_HOOK=0).', data: null };
  const script = path.join(__dirname, '..', 'servers', 'tracing-hook-loop.js');
  const outDir = makeTempDir('gateway-bench-callgrind-tracing-hook-');
  try {
    const perCall: Record<string, number[]> = {};
    for (const mode of HOOK_MODES) {
      perCall[mode] = [];
      for (let r = 0; r < HOOK_REPEATS; r += 1) {
        const [short, long] = await Promise.all(HOOK_CALLS.map((n) => countInstructions(outDir.path, `${mode}-${r}-${n}`, script, [String(n), mode])));
        perCall[mode].push(((long as number) - (short as number)) / (HOOK_CALLS[1] - HOOK_CALLS[0]));
        ctx.log(`tracing hooks alone (${mode}), repeat ${r + 1}: ${formatNumber(perCall[mode].at(-1), 0)} Ir a request`);
      }
    }
    const markdown =
      `The tracing hooks alone (a ${HOOK_CALLS[1]}-call run less a ${HOOK_CALLS[0]}-call one, so node's start-up cancels out, ${HOOK_REPEATS} repeats): ` +
      HOOK_MODES.map((m) => `${m} ${(perCall[m] ?? []).map((n) => formatNumber(n)).join(', ')} Ir a request (median ${formatNumber(median(perCall[m] ?? []))})`).join('; ') +
      '. `propagate` is the policy\'s onRequest at 10 % sampling; `export-10` adds onComplete, the sampled tenth batched by the adapter and exported by the OpenTelemetry OTLP exporter over OTLP/HTTP ' +
      'to a collector in a child process valgrind does not count.';
    return { markdown, data: { hookInstructionsPerRequest: perCall } };
  } finally {
    outDir.remove();
  }
}

/**
 * What 10 % sampling with OTLP export costs a request over tracing off (issue 18: at most 5 %),
 * data planes on proxy.yml with one /api/* route under callgrind, and first the tracing hooks alone.
 */
export const tracingInstructionsScenario = defineInstructionComparison<TracingBenchEnv>({
  name: 'tracing-instructions',
  title: 'Tracing off vs 10 % exported: instructions per request under callgrind',
  description:
    'GET of 100 B through a data plane with one /api/* route: tracing off, and W3C trace context on with 10 % of the traces exported over OTLP/HTTP to a collector ' +
    'in the harness process. First, the tracing hooks alone are counted (servers/tracing-hook-loop.ts; BENCH_CALLGRIND_HOOK=0 skips it).',
  variants: [OFF, SAMPLED_10],
  baseline: 'off',
  goal: SAMPLED_GOAL,
  path: TRACING_BENCH_PATH,
  prepare: async (ctx) => (await prepareTracingBench(ctx)).env,
  start: (env, ctx, launch) => startTracingDataPlane(env, ctx, launch),
  extra: hookInstructions,
});

/**
 * What tracing costs a request while off (issue 18: at most 1 %): the build without tracing
 * (BENCH_TRACING_BASELINE_BIN) vs this one with tracing off, under callgrind.
 */
export const tracingOffInstructionsScenario = defineInstructionComparison<TracingBenchEnv>({
  name: 'tracing-off-instructions',
  title: 'A build without tracing vs tracing off: instructions per request under callgrind',
  description:
    `GET of 100 B through a data plane with one /api/* route: the build of ${BASELINE_BIN_VARIABLE} (apps/cli/bin/gateway.js of this commit with the tracing policy and the exchange's trace field taken out) ` +
    'and this build with tracing off (the default).',
  variants: [WITHOUT_TRACING, OFF],
  baseline: 'without-tracing',
  goal: OFF_GOAL,
  path: TRACING_BENCH_PATH,
  prepare: async (ctx) => {
    baselineCommand();
    return (await prepareTracingBench(ctx)).env;
  },
  start: (env, ctx, launch) => startTracingDataPlane(env, ctx, launch, launch.variant.name === WITHOUT_TRACING.name ? baselineCommand() : undefined),
});

/** The 10 % exported variant of the build BENCH_TRACING_OTHER_BIN names, when it names one. */
const otherSampled: InstructionVariant | undefined =
  process.env[OTHER_BIN_VARIABLE] === undefined ? undefined : { ...SAMPLED_10, name: 'sampled-10-other', label: `trace context, 10 % exported, build of ${OTHER_BIN_VARIABLE}` };

/**
 * Both of issue 18's goals from one set of processes (a busy machine fits one run, not two): the
 * build without tracing, this build with tracing off and with 10 % exported, and with
 * BENCH_TRACING_OTHER_BIN the 10 % variant of another build as well, each against the same `off`.
 */
export const tracingCostInstructionsScenario = defineInstructionComparison<TracingBenchEnv>({
  name: 'tracing-cost-instructions',
  title: 'Tracing: a build without it, off, 10 % exported: instructions per request under callgrind',
  description:
    `GET of 100 B through a data plane with one /api/* route: the build of ${BASELINE_BIN_VARIABLE} (this commit without the tracing policy), this build with tracing off, ` +
    `and with W3C trace context and 10 % exported over OTLP/HTTP to a collector in the harness process${otherSampled ? `, and the same on the build of ${OTHER_BIN_VARIABLE}` : ''}.`,
  variants: [WITHOUT_TRACING, OFF, SAMPLED_10, ...(otherSampled ? [otherSampled] : [])],
  baseline: 'without-tracing',
  goal: OFF_GOAL,
  moreGoals: [
    { baseline: 'off', ...SAMPLED_GOAL },
    ...(otherSampled ? [{ baseline: 'off', ...SAMPLED_GOAL, variant: otherSampled.name, description: `${SAMPLED_GOAL.description.replace('sampled-10', otherSampled.name)}, build of ${OTHER_BIN_VARIABLE}` }] : []),
  ],
  path: TRACING_BENCH_PATH,
  prepare: async (ctx) => {
    baselineCommand();
    if (otherSampled) buildCommand(OTHER_BIN_VARIABLE, 'another build with tracing');
    return (await prepareTracingBench(ctx)).env;
  },
  start: (env, ctx, launch) => {
    const { name } = launch.variant;
    const command = name === WITHOUT_TRACING.name ? baselineCommand() : name === otherSampled?.name ? buildCommand(OTHER_BIN_VARIABLE, 'another build with tracing') : undefined;
    return startTracingDataPlane(env, ctx, launch, command);
  },
});

/**
 * `apps/cli/bin/gateway.js` of the build before the traces of unmatched requests (the commit a
 * change started from): the baseline of `tracing-unmatched-instructions`.
 */
const UNMATCHED_BASELINE_BIN_VARIABLE = 'BENCH_TRACING_UNMATCHED_BASELINE_BIN';
const BEFORE_UNMATCHED: InstructionVariant = { name: 'before', label: 'build before unmatched tracing, tracing off', env: {} };
/** A path no route takes: the data plane answers 404 from route match. */
const UNMATCHED_PATH = '/nowhere/404';
const unmatchedBaselineCommand = (): string[] => buildCommand(UNMATCHED_BASELINE_BIN_VARIABLE, 'the build before unmatched tracing');

/**
 * The 404 path (requests no route takes) with tracing off, on the build before `tracing-unmatched`
 * and on this one (issue 18: tracing off must not cost), and this one with 10 % of them exported.
 */
export const tracingUnmatchedInstructionsScenario = defineInstructionComparison<TracingBenchEnv>({
  name: 'tracing-unmatched-instructions',
  title: 'Requests no route takes (404): before unmatched tracing, tracing off, 10 % exported: instructions per request under callgrind',
  description:
    `GET ${UNMATCHED_PATH} (no route: 404) through a data plane with one /api/* route: the build of ${UNMATCHED_BASELINE_BIN_VARIABLE} with tracing off, this build with tracing off, ` +
    'and this build with W3C trace context and 10 % of the unmatched requests exported over OTLP/HTTP to a collector in the harness process.',
  variants: [BEFORE_UNMATCHED, OFF, SAMPLED_10],
  baseline: 'before',
  goal: { variant: 'off', atLeast: OFF_AT_LEAST, description: 'instructions per 404, before/off (tracing off costs the 404 path nothing; at most 1 %)' },
  moreGoals: [{ baseline: 'off', variant: 'sampled-10', atLeast: SAMPLED_AT_LEAST, description: 'instructions per 404, off/sampled-10 (what tracing the 404s costs at 10 %)' }],
  path: UNMATCHED_PATH,
  status: 404,
  prepare: async (ctx) => {
    unmatchedBaselineCommand();
    return (await prepareTracingBench(ctx)).env;
  },
  start: (env, ctx, launch) => startTracingDataPlane(env, ctx, launch, launch.variant.name === BEFORE_UNMATCHED.name ? unmatchedBaselineCommand() : undefined),
});
