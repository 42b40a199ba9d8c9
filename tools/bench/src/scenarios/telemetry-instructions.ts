import path from 'node:path';
import { makeTempDir } from '@gateway/testing';
import { countInstructions } from '../harness/callgrind';
import { defineInstructionComparison } from '../harness/instruction-comparison';
import { formatNumber } from '../harness/report';
import type { HarnessContext, JsonValue } from '../harness/types';
import { prepareTelemetryBench, TELEMETRY_BENCH_PATH, telemetryFollower, type TelemetryBenchEnv } from './telemetry';

/**
 * The route's upstream deadlines, raised: under valgrind on a busy machine a request can take
 * longer than the route's default upstream timeouts (504).
 */
const SLOW_PROCESS_ROUTE = { timeout: { connect: 60_000, request: 60_000 } };
/** Calls of the telemetry hook alone in the short and the long run; their difference cancels node's start-up. */
const HOOK_CALLS = [100_000, 1_100_000] as const;
const HOOK_REPEATS = 2;

/** Instructions of one call of the telemetry hook: (long run - short run) / calls between them, per repeat. */
async function hookInstructions(ctx: HarnessContext): Promise<{ markdown: string; data: JsonValue }> {
  if (process.env['BENCH_CALLGRIND_HOOK'] === '0') return { markdown: 'The telemetry hook alone: skipped (BENCH_CALLGRIND_HOOK=0).', data: null };
  const script = path.join(__dirname, '..', 'servers', 'telemetry-hook-loop.js');
  const outDir = makeTempDir('gateway-bench-callgrind-hook-');
  try {
    const perCall: number[] = [];
    for (let r = 0; r < HOOK_REPEATS; r += 1) {
      const [short, long] = await Promise.all(HOOK_CALLS.map((n) => countInstructions(outDir.path, `hook-${r}-${n}`, script, [String(n)])));
      perCall.push(((long as number) - (short as number)) / (HOOK_CALLS[1] - HOOK_CALLS[0]));
      ctx.log(`telemetry hook alone, repeat ${r + 1}: ${formatNumber(perCall.at(-1), 0)} Ir a call`);
    }
    const markdown =
      `The telemetry hook alone (the policy's onComplete on a finished 200 exchange, ${HOOK_CALLS[1] - HOOK_CALLS[0]} calls: a ${HOOK_CALLS[1]}-call run less a ` +
      `${HOOK_CALLS[0]}-call one, so node's start-up cancels out): ${perCall.map((n) => formatNumber(n)).join(', ')} Ir a call.`;
    return { markdown, data: { hookInstructionsPerCall: perCall } };
  } finally {
    outDir.remove();
  }
}

/**
 * Instructions a request with cluster telemetry on vs off (issue 12's goal: at most 3 % more),
 * counted by callgrind where the VM has no hardware counters. Both data planes follow one control
 * plane over Redis, so telemetry's whole cost is in the count: the hook, the window built, encoded
 * and published a second, the event-loop delay monitor. The last two are driven by the clock, not
 * by requests: the harness fits Ir = a x requests + b x seconds per process and charges b at a
 * realistic request rate (harness/instruction-fit.ts, tools/bench/README.md "Instructions under callgrind").
 */
export const telemetryInstructionsScenario = defineInstructionComparison<TelemetryBenchEnv>({
  name: 'telemetry-instructions',
  title: 'Cluster telemetry on vs off: instructions per request under callgrind',
  description:
    'Two data planes following one control plane over Redis, GATEWAY_TELEMETRY=off and on, GET of 100 B. ' +
    'First, the telemetry hook alone is counted (a 1,100,000-call run less a 100,000-call one, twice; BENCH_CALLGRIND_HOOK=0 skips it).',
  variants: [
    { name: 'off', label: 'telemetry off', env: { GATEWAY_TELEMETRY: 'off' } },
    { name: 'on', label: 'telemetry on', env: { GATEWAY_TELEMETRY: 'on' } },
  ],
  baseline: 'off',
  goal: { variant: 'on', atLeast: 0.97, description: 'telemetry instructions per request, off/on' },
  path: TELEMETRY_BENCH_PATH,
  prepare: async (ctx) => (await prepareTelemetryBench(ctx, SLOW_PROCESS_ROUTE)).env,
  start: (env, ctx, { name, variant, proxyYaml, launch }) => telemetryFollower(env, ctx, name, variant.env, launch, proxyYaml).then((dp) => dp.process),
  extra: hookInstructions,
});
