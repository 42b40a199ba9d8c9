import http from 'node:http';
import { waitForQuiet } from './cpu';
import { runLoad, type LoadMeasurement, type LoadRequest } from './load';
import { formatGoal, formatNumber, formatRatio, markdownTable } from './report';
import { median, ratio } from './stats';
import type { GoalCheck, HarnessContext, JsonValue, Scenario, ScenarioResult } from './types';

/** One workload every variant is measured with (for example a response body size). */
export interface LoadCase {
  readonly name: string;
  readonly label: string;
  /** When set, the pre-flight request checks the response body has exactly this many bytes. */
  readonly expectedBodyBytes?: number;
}

/** A started variant: where to send load, and which process is "the proxy". */
export interface RunningVariant {
  readonly origin: string;
  /** The process whose CPU is reported as proxy CPU; absent when there is no proxy (direct). */
  readonly proxyPid?: number;
  request(loadCase: LoadCase): LoadRequest;
}

export interface VariantDefinition<Env> {
  readonly name: string;
  /** Name in tables and goal lines. */
  readonly label: string;
  start(env: Env, ctx: HarnessContext): Promise<RunningVariant>;
}

export type ComparisonMetric = 'requestsPerSecond' | 'requestsPerCpuSecond';

const METRIC_LABEL: Record<ComparisonMetric, string> = {
  requestsPerSecond: 'req/s',
  requestsPerCpuSecond: 'req/CPU-s',
};

/** "variant's metric / baseline's metric >= atLeast", checked per case. */
export interface ComparisonGoal {
  readonly variant: string;
  readonly metric: ComparisonMetric;
  readonly atLeast: number;
}

/** What the variants share (the upstream), plus processes whose CPU is worth reporting. */
export interface PreparedEnv<Env> {
  readonly env: Env;
  /** label -> pid; their CPU is recorded with every measurement (for example the upstream). */
  readonly observe: Readonly<Record<string, number>>;
}

export interface LoadComparisonDefinition<Env> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly cases: readonly LoadCase[];
  readonly variants: ReadonlyArray<VariantDefinition<Env>>;
  /** Name of the variant every ratio is relative to. */
  readonly baseline: string;
  readonly goals: readonly ComparisonGoal[];
  prepare(ctx: HarnessContext): Promise<PreparedEnv<Env>>;
}

interface RoundSample {
  readonly round: number;
  /** Measurements thrown away because the machine was busy with other work. */
  readonly retakes: number;
  /** Other processes stayed under --other-cpu-limit during the measurement. */
  readonly clean: boolean;
  /** Position in the round's order (0 = first). */
  readonly slot: number;
  readonly measurement: LoadMeasurement;
  readonly proxyCpuSeconds: number | undefined;
  readonly requestsPerCpuSecond: number | undefined;
}

interface VariantSummary {
  /** Rounds the medians are taken over (the clean ones, or all when none was clean). */
  readonly roundsUsed: number;
  /** Rounds whose measurement was not disturbed by other processes. */
  readonly cleanRounds: number;
  /** Rounds the ratios are taken over. */
  readonly pairedRoundsUsed: number;
  readonly requestsPerSecond: number | undefined;
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  readonly proxyCpuSeconds: number | undefined;
  readonly requestsPerCpuSecond: number | undefined;
  /** Median over rounds of (this variant / baseline in the same round and case). */
  readonly ratios: {
    readonly requestsPerSecond: number | undefined;
    readonly p50Ms: number | undefined;
    readonly p99Ms: number | undefined;
    readonly requestsPerCpuSecond: number | undefined;
  };
  /** Lowest and highest per-round ratio, per metric. */
  readonly ratioRanges: Record<ComparisonMetric | 'p50Ms' | 'p99Ms', readonly [number, number] | undefined>;
  /** Median CPU utilisation (fraction of one core) per observed process and the load generator. */
  readonly utilisation: Record<string, number | undefined>;
}

/** Longest wait for a quiet machine before a retake, and all such waits of a scenario together. */
const QUIET_WAIT_MS = 10_000;
const QUIET_WAIT_BUDGET_MS = 60_000;

/** Rotates `items` left by `by` (round r starts with a different variant). */
function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = items.length === 0 ? 0 : by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** One request outside the load generator: the variant must answer 2xx with the expected body. */
function probe(origin: string, request: LoadRequest, expectedBodyBytes: number | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(origin + request.path, { method: request.method ?? 'GET', headers: request.headers, agent: false, timeout: 5000 }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) reject(new Error(`${origin}${request.path} answered ${status}`));
        else if (expectedBodyBytes !== undefined && bytes !== expectedBodyBytes) reject(new Error(`${origin}${request.path} answered ${bytes} bytes, expected ${expectedBodyBytes}`));
        else resolve();
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${origin}${request.path} did not answer within 5 s`)));
    req.on('error', reject);
    req.end(request.body);
  });
}

/**
 * Medians over the rounds whose measurement was clean (other processes under the limit), or over
 * all rounds when none was; ratios over the rounds where both this variant and the baseline were
 * clean (or all paired rounds when there is no such round).
 */
function summarise(samples: readonly RoundSample[], baseline: readonly RoundSample[] | undefined, observed: readonly string[]): VariantSummary {
  const cleanSamples = samples.filter((s) => s.clean);
  const used = cleanSamples.length > 0 ? cleanSamples : samples;
  const byRound = new Map((baseline ?? []).map((s) => [s.round, s]));
  const allPairs = samples.flatMap((s) => {
    const base = byRound.get(s.round);
    return base ? [{ s, base }] : [];
  });
  const cleanPairs = allPairs.filter((p) => p.s.clean && p.base.clean);
  const pairs = cleanPairs.length > 0 ? cleanPairs : allPairs;
  const perRound = (pick: (s: RoundSample) => number | undefined): number[] =>
    pairs.map(({ s, base }) => ratio(pick(s), pick(base))).filter((r): r is number => r !== undefined);
  const ratioMedian = (pick: (s: RoundSample) => number | undefined): number | undefined => median(perRound(pick));
  const ratioRange = (pick: (s: RoundSample) => number | undefined): readonly [number, number] | undefined => {
    const values = perRound(pick);
    return values.length === 0 ? undefined : [Math.min(...values), Math.max(...values)];
  };
  const utilisation: Record<string, number | undefined> = {};
  for (const label of ['proxy', ...observed]) {
    utilisation[label] = median(used.map((s) => {
      const cpu = label === 'proxy' ? s.proxyCpuSeconds : s.measurement.cpuSeconds[label];
      return cpu === undefined ? undefined : cpu / s.measurement.wallSeconds;
    }));
  }
  utilisation['load generator'] = median(used.map((s) => s.measurement.loadGeneratorCpuSeconds / s.measurement.wallSeconds));
  utilisation['other processes'] = median(used.map((s) => s.measurement.otherCpuSeconds / s.measurement.wallSeconds));
  return {
    roundsUsed: used.length,
    cleanRounds: cleanSamples.length,
    pairedRoundsUsed: pairs.length,
    requestsPerSecond: median(used.map((s) => s.measurement.requestsPerSecond)),
    p50Ms: median(used.map((s) => s.measurement.p50Ms)),
    p99Ms: median(used.map((s) => s.measurement.p99Ms)),
    proxyCpuSeconds: median(used.map((s) => s.proxyCpuSeconds)),
    requestsPerCpuSecond: median(used.map((s) => s.requestsPerCpuSecond)),
    ratios: {
      requestsPerSecond: ratioMedian((s) => s.measurement.requestsPerSecond),
      p50Ms: ratioMedian((s) => s.measurement.p50Ms),
      p99Ms: ratioMedian((s) => s.measurement.p99Ms),
      requestsPerCpuSecond: ratioMedian((s) => s.requestsPerCpuSecond),
    },
    ratioRanges: {
      requestsPerSecond: ratioRange((s) => s.measurement.requestsPerSecond),
      p50Ms: ratioRange((s) => s.measurement.p50Ms),
      p99Ms: ratioRange((s) => s.measurement.p99Ms),
      requestsPerCpuSecond: ratioRange((s) => s.requestsPerCpuSecond),
    },
    utilisation,
  };
}

function percent(value: number | undefined): string {
  return value === undefined ? '—' : `${Math.round(value * 100)} %`;
}

interface CaseReport {
  readonly markdown: string[];
  readonly goals: GoalCheck[];
  readonly json: JsonValue;
}

/** Tables, goal checks and JSON for one case, from every selected variant's samples. */
function reportCase<Env>(
  definition: LoadComparisonDefinition<Env>,
  selected: ReadonlyArray<VariantDefinition<Env>>,
  loadCase: LoadCase,
  samplesOf: (variant: string) => readonly RoundSample[],
  observed: readonly string[],
  rounds: number,
): CaseReport {
  const baseline = selected.find((v) => v.name === definition.baseline);
  const baselineSamples = baseline ? samplesOf(baseline.name) : undefined;
  const summaries = new Map(selected.map((v) => [v.name, summarise(samplesOf(v.name), baselineSamples, observed)]));
  const summaryOf = (name: string): VariantSummary => summaries.get(name) as VariantSummary;
  const baseLabel = baseline?.label ?? definition.baseline;

  const markdown = [`#### ${loadCase.label}\n`];
  markdown.push(markdownTable(
    ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'proxy CPU-s', 'req/CPU-s', `req/s vs ${baseLabel}`, `p50 vs ${baseLabel}`, `p99 vs ${baseLabel}`, `req/CPU-s vs ${baseLabel}`, 'clean rounds'],
    selected.map((v) => {
      const s = summaryOf(v.name);
      return [v.label, formatNumber(s.requestsPerSecond), formatNumber(s.p50Ms, 2), formatNumber(s.p99Ms, 2), formatNumber(s.proxyCpuSeconds, 2),
        formatNumber(s.requestsPerCpuSecond), formatRatio(s.ratios.requestsPerSecond), formatRatio(s.ratios.p50Ms), formatRatio(s.ratios.p99Ms),
        formatRatio(s.ratios.requestsPerCpuSecond), `${s.cleanRounds}/${rounds}`];
    }),
  ), '');
  markdown.push(markdownTable(
    ['CPU use (share of one core)', 'proxy', ...observed, 'load generator', 'other processes'],
    selected.map((v) => {
      const u = summaryOf(v.name).utilisation;
      return [v.label, percent(u['proxy']), ...observed.map((o) => percent(u[o])), percent(u['load generator']), percent(u['other processes'])];
    }),
  ), '');

  const goals: GoalCheck[] = definition.goals.map((goal) => {
    const label = definition.variants.find((v) => v.name === goal.variant)?.label ?? goal.variant;
    const summary = summaries.get(goal.variant);
    const value = summary?.ratios[goal.metric];
    const range = summary?.ratioRanges[goal.metric];
    return {
      description: `${label} ${METRIC_LABEL[goal.metric]} ratio to ${baseLabel}, ${loadCase.label}`,
      value,
      atLeast: goal.atLeast,
      rounds: range && summary ? { low: range[0], high: range[1], used: summary.pairedRoundsUsed, total: rounds } : undefined,
      met: value === undefined ? undefined : value >= goal.atLeast,
    };
  });
  markdown.push(...goals.map(formatGoal));
  if (goals.length > 0) markdown.push('');

  const json = Object.fromEntries(selected.map((v): [string, JsonValue] => {
    const s = summaryOf(v.name);
    return [v.name, {
      label: v.label,
      roundsUsed: s.roundsUsed,
      cleanRounds: s.cleanRounds,
      pairedRoundsUsed: s.pairedRoundsUsed,
      median: {
        requestsPerSecond: s.requestsPerSecond ?? null,
        p50Ms: s.p50Ms ?? null,
        p99Ms: s.p99Ms ?? null,
        proxyCpuSeconds: s.proxyCpuSeconds ?? null,
        requestsPerCpuSecond: s.requestsPerCpuSecond ?? null,
      },
      ratioToBaseline: Object.fromEntries(Object.entries(s.ratios).map(([k, r]) => [k, r ?? null])),
      ratioToBaselineRange: Object.fromEntries(Object.entries(s.ratioRanges).map(([k, r]) => [k, r ? [...r] : null])),
      cpuShareOfOneCore: Object.fromEntries(Object.entries(s.utilisation).map(([k, u]) => [k, u ?? null])),
      rounds: samplesOf(v.name).map((sample) => ({
        round: sample.round + 1,
        slot: sample.slot + 1,
        clean: sample.clean,
        retakes: sample.retakes,
        requests: sample.measurement.requests,
        wallSeconds: sample.measurement.wallSeconds,
        requestsPerSecond: sample.measurement.requestsPerSecond,
        p50Ms: sample.measurement.p50Ms ?? null,
        p99Ms: sample.measurement.p99Ms ?? null,
        errors: sample.measurement.errors,
        non2xx: sample.measurement.non2xx,
        proxyCpuSeconds: sample.proxyCpuSeconds ?? null,
        requestsPerCpuSecond: sample.requestsPerCpuSecond ?? null,
        cpuSeconds: sample.measurement.cpuSeconds,
        loadGeneratorCpuSeconds: sample.measurement.loadGeneratorCpuSeconds,
        otherCpuSeconds: sample.measurement.otherCpuSeconds,
      })),
    }];
  }));
  return { markdown, goals, json };
}

/**
 * Builds a scenario that measures each selected variant under the same closed-loop load (fixed
 * connections, pipelining 1), once per case per round, in interleaved and rotated order, and
 * reports medians and ratios to the baseline variant.
 */
export function defineLoadComparison<Env>(definition: LoadComparisonDefinition<Env>): Scenario {
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    variantNames: definition.variants.map((v) => v.name),
    run: async (ctx: HarnessContext): Promise<ScenarioResult> => {
      const { options } = ctx;
      const selected = definition.variants.filter((v) => ctx.variantSelected(definition.name, v.name));
      const prepared = await definition.prepare(ctx);
      const observed = Object.keys(prepared.observe);

      const running = new Map<string, RunningVariant>();
      for (const variant of selected) {
        ctx.log(`starting ${variant.label}`);
        running.set(variant.name, await variant.start(prepared.env, ctx));
      }
      for (const variant of selected) {
        const target = running.get(variant.name) as RunningVariant;
        for (const loadCase of definition.cases) await probe(target.origin, target.request(loadCase), loadCase.expectedBodyBytes);
      }

      const load = (variant: VariantDefinition<Env>, loadCase: LoadCase, seconds: number): Promise<LoadMeasurement> => {
        const target = running.get(variant.name) as RunningVariant;
        const observe: Record<string, number> = { ...prepared.observe };
        if (target.proxyPid !== undefined) observe['proxy'] = target.proxyPid;
        return runLoad({ origin: target.origin, request: target.request(loadCase), connections: options.connections, durationSeconds: seconds, observe });
      };

      if (options.initialWarmupSeconds > 0) {
        for (const variant of selected) {
          for (const loadCase of definition.cases) {
            ctx.log(`warm-up ${variant.label}, ${loadCase.label} (${options.initialWarmupSeconds} s)`);
            await load(variant, loadCase, options.initialWarmupSeconds);
          }
        }
      }

      const problems: string[] = [];
      // Retakes are bounded for the whole run too (at most half the measurements again, and a
      // minute of waiting for quiet), so a busy machine makes the run longer by a known amount.
      let retakeBudget = Math.ceil((options.rounds * definition.cases.length * selected.length) / 2);
      let quietWaitBudgetMs = QUIET_WAIT_BUDGET_MS;
      /** Warm-up plus measurement, retaken while other processes disturb it (within the budgets). */
      const measure = async (variant: VariantDefinition<Env>, loadCase: LoadCase, where: string): Promise<{ measurement: LoadMeasurement; retakes: number; clean: boolean }> => {
        for (let retakes = 0; ; retakes += 1) {
          if (options.warmupSeconds > 0) await load(variant, loadCase, options.warmupSeconds);
          const measurement = await load(variant, loadCase, options.durationSeconds);
          const other = measurement.otherCpuSeconds / measurement.wallSeconds;
          if (options.otherCpuLimit <= 0 || other <= options.otherCpuLimit) return { measurement, retakes, clean: true };
          if (retakes >= options.retries || retakeBudget === 0) {
            problems.push(`${where}: other processes used ${percent(other)} of a core during the measurement (kept after ${retakes} retakes)`);
            return { measurement, retakes, clean: false };
          }
          retakeBudget -= 1;
          ctx.log(`${where}: other processes used ${percent(other)} of a core meanwhile; measuring again once the machine is quiet`);
          quietWaitBudgetMs -= await waitForQuiet(options.otherCpuLimit, Math.min(QUIET_WAIT_MS, Math.max(0, quietWaitBudgetMs)));
        }
      };

      const samples = new Map<string, RoundSample[]>();
      const key = (variant: string, loadCase: string): string => `${variant}\u0000${loadCase}`;
      for (let round = 0; round < options.rounds; round += 1) {
        for (const loadCase of definition.cases) {
          for (const [slot, variant] of rotate(selected, round).entries()) {
            const where = `round ${round + 1}/${options.rounds} ${loadCase.label} ${variant.label}`;
            const { measurement, retakes, clean } = await measure(variant, loadCase, where);
            const proxyCpuSeconds = measurement.cpuSeconds['proxy'];
            const requestsPerCpuSecond = proxyCpuSeconds === undefined || proxyCpuSeconds === 0 ? undefined : measurement.requests / proxyCpuSeconds;
            const list = samples.get(key(variant.name, loadCase.name)) ?? [];
            list.push({ round, slot, retakes, clean, measurement, proxyCpuSeconds, requestsPerCpuSecond });
            samples.set(key(variant.name, loadCase.name), list);
            const cpuNote = proxyCpuSeconds === undefined ? '' : `, proxy ${proxyCpuSeconds.toFixed(2)} CPU-s, ${formatNumber(requestsPerCpuSecond)} req/CPU-s`;
            ctx.log(`${where}: ${formatNumber(measurement.requestsPerSecond)} req/s, p50 ${formatNumber(measurement.p50Ms, 2)} ms, p99 ${formatNumber(measurement.p99Ms, 2)} ms${cpuNote}`);
            if (measurement.requests === 0) throw new Error(`${variant.label} completed no request (${loadCase.label})`);
            if (measurement.errors > 0 || measurement.non2xx > 0) {
              problems.push(`${where}: ${measurement.errors} errors (${measurement.timeouts} timeouts), ${measurement.non2xx} non-2xx`);
            }
          }
        }
      }
      for (const problem of problems) ctx.log(`warning: ${problem}`);

      const reports = definition.cases.map((loadCase) =>
        reportCase(definition, selected, loadCase, (variant) => samples.get(key(variant, loadCase.name)) ?? [], observed, options.rounds));
      return {
        name: definition.name,
        title: definition.title,
        markdown: reports.flatMap((r) => r.markdown).join('\n'),
        goals: reports.flatMap((r) => r.goals),
        data: {
          baseline: definition.baseline,
          cases: Object.fromEntries(definition.cases.map((c, i) => [c.name, (reports[i] as CaseReport).json])),
          warnings: problems,
        },
      };
    },
  };
}
