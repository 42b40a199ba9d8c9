import { manyRoutesConfig } from '@gateway/testing';
import { baselineCommand } from '../harness/baseline-build';
import { startDataPlane } from '../harness/gateway';
import { formatGoal, formatNumber, markdownTable } from '../harness/report';
import { median } from '../harness/stats';
import { threadCpuNanoseconds } from '../harness/thread-cpu';
import { startTwoByteUpstream } from '../harness/two-byte-upstream';
import type { GoalCheck, HarnessContext, JsonValue, Scenario, ScenarioResult } from '../harness/types';

/** The table (the `scale` scenario's, also written by fixtures/many-routes.js). */
const ROUTES = 10_000;
const GOAL_MS = 1000;

/** Names `apps/cli/bin/gateway.js` of another build (a checkout before a change), measured as the variant `before`. */
const BASELINE_BIN = 'BENCH_START_BASELINE_BIN';

interface StartFigure {
  readonly variant: string;
  readonly wallMs: number;
  /** CPU time of every thread of the data plane from spawn to listening (schedstat: not inflated by waiting for a core). */
  readonly cpuMs: number;
}

/** One start: spawn to answering GET /health/live (a proxy.yml data plane compiles its table before it listens). */
async function measureStart(ctx: HarnessContext, variant: string, yaml: string): Promise<StartFigure> {
  const started = performance.now();
  const plane = await startDataPlane(ctx, `start-${variant}`, yaml, {}, variant === 'before' ? { command: baselineCommand(BASELINE_BIN) } : {});
  try {
    const wallMs = performance.now() - started;
    return { variant, wallMs, cpuMs: threadCpuNanoseconds(plane.pid) / 1e6 };
  } finally {
    await plane.process.stop();
  }
}

/**
 * Node reads NODE_EXTRA_CA_CERTS (and builds its root store) in its own start-up, before any of
 * the gateway's code runs, in every process that inherits it: ~14 % of the main thread's
 * instructions to listening at 10,000 routes where a sandbox set it to the system bundle (~50 ms
 * of CPU). Said beside the figures so that runs on machines with and without it are not compared
 * as if the gateway had changed.
 */
function extraCaNote(extraCaCerts: string | undefined): string {
  return extraCaCerts === undefined || extraCaCerts === ''
    ? 'NODE_EXTRA_CA_CERTS: not set.'
    : 'NODE_EXTRA_CA_CERTS is set in this environment: node loads that file at every process start, before the gateway runs (part of both variants\' CPU; docs/data-plane.md, start-up fourth pass).';
}

/**
 * Issue 19's "start under 1 s" at 10,000 routes: `gateway start --role data-plane` on the
 * generated proxy.yml (telemetry on, tracing off, at their defaults), this build beside another
 * (BENCH_START_BASELINE_BIN) in interleaved rounds. Wall time on a loaded machine is mostly
 * waiting for a core, so the data plane's CPU time to listening is reported beside it.
 */
export const startScenario: Scenario = {
  name: 'start',
  title: `Data plane start-up with ${formatNumber(ROUTES)} routes: wall and CPU time to listening (this build beside another)`,
  description:
    `gateway start --role data-plane on a proxy.yml of ${formatNumber(ROUTES)} generated routes, spawn to GET /health/live answering (polled every 100 ms), ` +
    `wall time and the CPU time of all the data plane's threads (schedstat) at that moment; rounds interleaved (--rounds), medians. ` +
    `Variant before: the build whose apps/cli/bin/gateway.js BENCH_START_BASELINE_BIN names. Goal: start < ${GOAL_MS} ms.`,
  variantNames: ['before', 'build'],
  async run(ctx: HarnessContext): Promise<ScenarioResult> {
    const upstream = await startTwoByteUpstream();
    try {
      const { yaml } = manyRoutesConfig({ count: ROUTES, upstreamOrigin: upstream.origin });
      const variants = ['before', 'build'].filter((v) => ctx.variantSelected('start', v));
      const figures: StartFigure[] = [];
      for (let round = 0; round < ctx.options.rounds; round += 1) {
        // The order alternates, so neither variant always follows the other.
        const order = round % 2 === 0 ? variants : [...variants].reverse();
        for (const variant of order) {
          const figure = await measureStart(ctx, variant, yaml);
          ctx.log(`start: round ${round + 1}, ${variant}: ${formatNumber(figure.wallMs)} ms wall, ${formatNumber(figure.cpuMs)} ms CPU`);
          figures.push(figure);
        }
      }
      const summary = variants.map((variant) => {
        const mine = figures.filter((f) => f.variant === variant);
        return { variant, wallMs: median(mine.map((f) => f.wallMs)) ?? Number.NaN, cpuMs: median(mine.map((f) => f.cpuMs)) ?? Number.NaN, runs: mine };
      });
      const build = summary.find((s) => s.variant === 'build');
      const before = summary.find((s) => s.variant === 'before');
      const goals: GoalCheck[] = build === undefined ? [] : [
        { description: 'start, spawn to listening, wall (ms, median)', value: build.wallMs, below: GOAL_MS, met: build.wallMs < GOAL_MS },
        { description: 'start, CPU to listening (ms, median)', value: build.cpuMs, below: GOAL_MS, met: build.cpuMs < GOAL_MS },
      ];
      const rows = summary.map((s) => [
        s.variant,
        formatNumber(s.wallMs),
        formatNumber(s.cpuMs),
        s.runs.map((r) => formatNumber(r.cpuMs)).join(', '),
      ]);
      const ratio = build !== undefined && before !== undefined ? `\n\nCPU to listening, build / before: ${formatNumber(build.cpuMs / before.cpuMs, 2)} (medians).` : '';
      const markdown = [
        markdownTable(['variant', 'wall ms (median)', 'CPU ms (median)', 'CPU ms per round'], rows) + ratio,
        extraCaNote(process.env['NODE_EXTRA_CA_CERTS']),
        ...goals.map((g) => `- ${formatGoal(g)}`),
      ].join('\n\n');
      const data: JsonValue = { figures: figures.map((f) => ({ ...f })) };
      return { name: 'start', title: startScenario.title, markdown, goals, data };
    } finally {
      upstream.close();
    }
  },
};
