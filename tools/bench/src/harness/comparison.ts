import http from 'node:http';
import { CounterSession, type CounterReading } from './counters';
import { processTree, waitForQuiet } from './cpu';
import { cpuListOf, pinProcessTree } from './cpu-pinning';
import { expectedStatus, runLoad, type LoadMeasurement, type LoadRequest } from './load';
import { formatGoal, formatNumber, formatRatio, markdownTable } from './report';
import { intervalVerdict, median, medianInterval, ratio } from './stats';
import type { GoalCheck, HarnessContext, JsonValue, Scenario, ScenarioResult } from './types';
import type { ManagedProcess } from './processes';

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

/**
 * Metrics a goal can be about. For the per-request costs (cycles, instructions) the ratio is
 * baseline / variant, so that for every one of these a ratio above 1 means the variant is better.
 */
export type ComparisonMetric = 'requestsPerSecond' | 'requestsPerCpuSecond' | 'cyclesPerRequest' | 'instructionsPerRequest';

const METRIC_LABEL: Record<ComparisonMetric, string> = {
  requestsPerSecond: 'req/s',
  requestsPerCpuSecond: 'req/CPU-s',
  cyclesPerRequest: 'cycles-per-request',
  instructionsPerRequest: 'instructions-per-request',
};

/** "variant's metric / baseline's metric >= atLeast" (baseline / variant for per-request costs), checked per case. */
export interface ComparisonGoal {
  readonly variant: string;
  readonly metric: ComparisonMetric;
  readonly atLeast: number;
  /**
   * Judge the goal by the median's confidence interval over the paired rounds at this level (0.95)
   * instead of the median alone: met when the whole interval is at or above `atLeast`, not met when
   * it is wholly below, no verdict otherwise (Method, "Verdict by interval").
   */
  readonly confidence?: number;
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
  /** Hardware counters of the proxy during the measurement (perf stat); undefined without perf. */
  readonly counters: CounterReading | undefined;
  readonly cyclesPerRequest: number | undefined;
  readonly instructionsPerRequest: number | undefined;
}

type RatioKey = ComparisonMetric | 'p50Ms' | 'p99Ms';

/**
 * Every ratio column, in table order: how to read the value from a round, and whether the ratio is
 * variant / baseline (as measured) or baseline / variant (per-request costs, so higher is better).
 */
const RATIOS: ReadonlyArray<{ readonly key: RatioKey; readonly pick: (s: RoundSample) => number | undefined; readonly inverse: boolean }> = [
  { key: 'requestsPerSecond', pick: (s) => s.measurement.requestsPerSecond, inverse: false },
  { key: 'p50Ms', pick: (s) => s.measurement.p50Ms, inverse: false },
  { key: 'p99Ms', pick: (s) => s.measurement.p99Ms, inverse: false },
  { key: 'requestsPerCpuSecond', pick: (s) => s.requestsPerCpuSecond, inverse: false },
  { key: 'cyclesPerRequest', pick: (s) => s.cyclesPerRequest, inverse: true },
  { key: 'instructionsPerRequest', pick: (s) => s.instructionsPerRequest, inverse: true },
];

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
  readonly cyclesPerRequest: number | undefined;
  readonly instructionsPerRequest: number | undefined;
  /**
   * Median over rounds of (this variant / baseline in the same round and case); baseline / variant
   * for cyclesPerRequest and instructionsPerRequest.
   */
  readonly ratios: Record<RatioKey, number | undefined>;
  /** Lowest and highest per-round ratio, per metric. */
  readonly ratioRanges: Record<RatioKey, readonly [number, number] | undefined>;
  /** Every paired round's ratio, in round order, per metric (the spread a goal's median hides). */
  readonly ratiosPerRound: Record<RatioKey, readonly number[]>;
  /** The same over the clean pairs only (both measurements undisturbed): what a verdict by interval uses. */
  readonly cleanRatiosPerRound: Record<RatioKey, readonly number[]>;
  /** Median CPU utilisation (fraction of one core) per observed process and the load generator. */
  readonly utilisation: Record<string, number | undefined>;
}

/** After this many perf failures in a scenario, its remaining measurements go without counters. */
const COUNTER_FAILURE_LIMIT = 2;

/** Longest wait for a quiet machine before a retake, and all such waits of a scenario together. */
const QUIET_WAIT_MS = 10_000;
const QUIET_WAIT_BUDGET_MS = 60_000;

/** Rotates `items` left by `by` (round r starts with a different variant). */
function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = items.length === 0 ? 0 : by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** One request outside the load generator: the variant must answer an expected status (2xx by default) with the expected body. */
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
        if (!expectedStatus(request, status)) reject(new Error(`${origin}${request.path} answered ${status}`));
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
  const perRound = ({ pick, inverse }: (typeof RATIOS)[number], over = pairs): number[] =>
    over.map(({ s, base }) => (inverse ? ratio(pick(base), pick(s)) : ratio(pick(s), pick(base)))).filter((r): r is number => r !== undefined);
  const ratioRange = (values: readonly number[]): readonly [number, number] | undefined =>
    values.length === 0 ? undefined : [Math.min(...values), Math.max(...values)];
  const ratios = {} as Record<RatioKey, number | undefined>;
  const ratioRanges = {} as Record<RatioKey, readonly [number, number] | undefined>;
  const ratiosPerRound = {} as Record<RatioKey, readonly number[]>;
  const cleanRatiosPerRound = {} as Record<RatioKey, readonly number[]>;
  for (const definition of RATIOS) {
    cleanRatiosPerRound[definition.key] = perRound(definition, cleanPairs);
    const values = perRound(definition);
    ratios[definition.key] = median(values);
    ratioRanges[definition.key] = ratioRange(values);
    ratiosPerRound[definition.key] = values;
  }
  const utilisation: Record<string, number | undefined> = {};
  for (const label of ['proxy', ...observed]) {
    utilisation[label] = median(used.map((s) => {
      const cpu = label === 'proxy' ? s.proxyCpuSeconds : s.measurement.cpuSeconds[label];
      return cpu === undefined ? undefined : cpu / s.measurement.wallSeconds;
    }));
  }
  utilisation['load generator'] = median(used.map((s) => s.measurement.loadGeneratorCpuSeconds / s.measurement.wallSeconds));
  utilisation['other processes'] = median(used.map((s) => s.measurement.otherCpuSeconds / s.measurement.wallSeconds));
  // Part of "other processes" already; apart, because a pinned proxy's core can lose it unseen.
  utilisation['steal'] = median(used.map((s) => s.measurement.stealSecondsPerCore.reduce((a, b) => a + b, 0) / s.measurement.wallSeconds));
  return {
    roundsUsed: used.length,
    cleanRounds: cleanSamples.length,
    pairedRoundsUsed: pairs.length,
    requestsPerSecond: median(used.map((s) => s.measurement.requestsPerSecond)),
    p50Ms: median(used.map((s) => s.measurement.p50Ms)),
    p99Ms: median(used.map((s) => s.measurement.p99Ms)),
    proxyCpuSeconds: median(used.map((s) => s.proxyCpuSeconds)),
    requestsPerCpuSecond: median(used.map((s) => s.requestsPerCpuSecond)),
    cyclesPerRequest: median(used.map((s) => s.cyclesPerRequest)),
    instructionsPerRequest: median(used.map((s) => s.instructionsPerRequest)),
    ratios,
    ratioRanges,
    ratiosPerRound,
    cleanRatiosPerRound,
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
  withCounters: boolean,
): CaseReport {
  const baseline = selected.find((v) => v.name === definition.baseline);
  const baselineSamples = baseline ? samplesOf(baseline.name) : undefined;
  const summaries = new Map(selected.map((v) => [v.name, summarise(samplesOf(v.name), baselineSamples, observed)]));
  const summaryOf = (name: string): VariantSummary => summaries.get(name) as VariantSummary;
  const baseLabel = baseline?.label ?? definition.baseline;

  const markdown = [`#### ${loadCase.label}\n`];
  // The counter columns are left out when perf cannot count here (the report says so once).
  const counterColumns = (...cells: string[]): string[] => (withCounters ? cells : []);
  markdown.push(markdownTable(
    ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'proxy CPU-s', 'req/CPU-s', ...counterColumns('cycles/req', 'instr/req'),
      `req/s vs ${baseLabel}`, `p50 vs ${baseLabel}`, `p99 vs ${baseLabel}`, `req/CPU-s vs ${baseLabel}`,
      ...counterColumns(`cycles/req vs ${baseLabel}`, `instr/req vs ${baseLabel}`), 'clean rounds'],
    selected.map((v) => {
      const s = summaryOf(v.name);
      return [v.label, formatNumber(s.requestsPerSecond), formatNumber(s.p50Ms, 2), formatNumber(s.p99Ms, 2), formatNumber(s.proxyCpuSeconds, 2),
        formatNumber(s.requestsPerCpuSecond), ...counterColumns(formatNumber(s.cyclesPerRequest), formatNumber(s.instructionsPerRequest)),
        formatRatio(s.ratios.requestsPerSecond), formatRatio(s.ratios.p50Ms), formatRatio(s.ratios.p99Ms), formatRatio(s.ratios.requestsPerCpuSecond),
        ...counterColumns(formatRatio(s.ratios.cyclesPerRequest), formatRatio(s.ratios.instructionsPerRequest)), `${s.cleanRounds}/${rounds}`];
    }),
  ), '');
  markdown.push(markdownTable(
    ['CPU use (share of one core)', 'proxy', ...observed, 'load generator', 'other processes', 'of which steal'],
    selected.map((v) => {
      const u = summaryOf(v.name).utilisation;
      return [v.label, percent(u['proxy']), ...observed.map((o) => percent(u[o])), percent(u['load generator']), percent(u['other processes']), percent(u['steal'])];
    }),
  ), '');

  const goals: GoalCheck[] = definition.goals.map((goal) => {
    const label = definition.variants.find((v) => v.name === goal.variant)?.label ?? goal.variant;
    const summary = summaries.get(goal.variant);
    const value = summary?.ratios[goal.metric];
    const range = summary?.ratioRanges[goal.metric];
    const interval = goal.confidence === undefined || value === undefined ? undefined : medianInterval(summary?.cleanRatiosPerRound[goal.metric] ?? [], goal.confidence) ?? null;
    const met = value === undefined ? undefined
      : interval === undefined ? value >= goal.atLeast
      : intervalVerdict(interval ?? undefined, goal.atLeast);
    return {
      description: `${label} ${METRIC_LABEL[goal.metric]} ratio to ${baseLabel}, ${loadCase.label}`,
      value,
      atLeast: goal.atLeast,
      rounds: range && summary ? { low: range[0], high: range[1], used: summary.pairedRoundsUsed, total: rounds } : undefined,
      ...(interval === undefined ? {} : { interval }),
      met,
    };
  });
  markdown.push(...goals.map(formatGoal));
  for (const goal of definition.goals) {
    const values = summaries.get(goal.variant)?.ratiosPerRound[goal.metric] ?? [];
    // The rounds one by one: how many fall on each side of the goal says more than the median.
    if (values.length > 1) {
      const below = values.filter((v) => v < goal.atLeast).length;
      markdown.push(`(per round: ${values.map((v) => formatRatio(v)).join(', ')}; ${values.length - below} of ${values.length} at or above ${goal.atLeast})`);
    }
  }
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
        cyclesPerRequest: s.cyclesPerRequest ?? null,
        instructionsPerRequest: s.instructionsPerRequest ?? null,
      },
      ratioToBaseline: Object.fromEntries(Object.entries(s.ratios).map(([k, r]) => [k, r ?? null])),
      ratioToBaselineRange: Object.fromEntries(Object.entries(s.ratioRanges).map(([k, r]) => [k, r ? [...r] : null])),
      ratioToBaselinePerRound: Object.fromEntries(Object.entries(s.ratiosPerRound).map(([k, r]) => [k, [...r]])),
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
        unexpected: sample.measurement.unexpected,
        statuses: { ...sample.measurement.statuses },
        proxyCpuSeconds: sample.proxyCpuSeconds ?? null,
        requestsPerCpuSecond: sample.requestsPerCpuSecond ?? null,
        cycles: sample.counters?.cycles ?? null,
        instructions: sample.counters?.instructions ?? null,
        cyclesPerRequest: sample.cyclesPerRequest ?? null,
        instructionsPerRequest: sample.instructionsPerRequest ?? null,
        cpuSeconds: sample.measurement.cpuSeconds,
        loadGeneratorCpuSeconds: sample.measurement.loadGeneratorCpuSeconds,
        otherCpuSeconds: sample.measurement.otherCpuSeconds,
        stealSecondsPerCore: sample.measurement.stealSecondsPerCore,
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

      const { pinning } = ctx;
      if (pinning !== undefined) {
        // The bench process is the load generator; proxies it starts inherit this core until pinned below.
        pinProcessTree(process.pid, pinning.restCpu);
        for (const pid of Object.values(prepared.observe)) pinProcessTree(pid, pinning.restCpu);
      }
      const running = new Map<string, RunningVariant>();
      /** Each variant's processes (everything the registry gained while it started), to stop them for a fresh round. */
      const processesOf = new Map<string, readonly ManagedProcess[]>();
      const startVariants = async (): Promise<void> => {
        for (const variant of selected) {
          ctx.log(`starting ${variant.label}`);
          const before = new Set(ctx.processes.snapshot());
          const started = await variant.start(prepared.env, ctx);
          running.set(variant.name, started);
          processesOf.set(variant.name, ctx.processes.snapshot().filter((p) => !before.has(p)));
          if (pinning !== undefined && started.proxyPid !== undefined) {
            pinProcessTree(started.proxyPid, pinning.proxyCpu);
            ctx.log(`${variant.label}: proxy on core ${cpuListOf(started.proxyPid)}, load generator on core ${cpuListOf(process.pid)}`);
          }
        }
        for (const variant of selected) {
          const target = running.get(variant.name) as RunningVariant;
          for (const loadCase of definition.cases) await probe(target.origin, target.request(loadCase), loadCase.expectedBodyBytes);
        }
      };
      const stopVariants = async (): Promise<void> => {
        for (const variant of [...selected].reverse()) {
          for (const managed of [...(processesOf.get(variant.name) ?? [])].reverse()) await managed.stop();
        }
        running.clear();
        processesOf.clear();
      };

      const load = (variant: VariantDefinition<Env>, loadCase: LoadCase, seconds: number): Promise<LoadMeasurement> => {
        const target = running.get(variant.name) as RunningVariant;
        const observe: Record<string, number> = { ...prepared.observe };
        if (target.proxyPid !== undefined) observe['proxy'] = target.proxyPid;
        return runLoad({ origin: target.origin, request: target.request(loadCase), connections: options.connections, overallRate: options.rate, durationSeconds: seconds, observe });
      };
      const initialWarmup = async (): Promise<void> => {
        if (options.initialWarmupSeconds <= 0) return;
        for (const variant of selected) {
          for (const loadCase of definition.cases) {
            ctx.log(`warm-up ${variant.label}, ${loadCase.label} (${options.initialWarmupSeconds} s)`);
            await load(variant, loadCase, options.initialWarmupSeconds);
          }
        }
      };
      await startVariants();
      await initialWarmup();

      const problems: string[] = [];
      let counterFailures = 0;
      /** perf attached to the proxy (and its descendants) and counting, or undefined (no perf, no proxy, perf failed). */
      const openCounters = async (variant: VariantDefinition<Env>, where: string): Promise<CounterSession | undefined> => {
        const proxyPid = (running.get(variant.name) as RunningVariant).proxyPid;
        if (!ctx.counters.available || proxyPid === undefined || counterFailures >= COUNTER_FAILURE_LIMIT) return undefined;
        try {
          return await CounterSession.open(ctx.processes, processTree(proxyPid));
        } catch (error) {
          counterFailed(where, error);
          return undefined;
        }
      };
      const counterFailed = (where: string, error: unknown): void => {
        counterFailures += 1;
        const stopping = counterFailures >= COUNTER_FAILURE_LIMIT ? '; no more counters in this scenario' : '';
        problems.push(`${where}: hardware counters failed: ${error instanceof Error ? error.message : String(error)}${stopping}`);
      };
      // Retakes are bounded for the whole run too (at most half the measurements again, and a
      // minute of waiting for quiet), so a busy machine makes the run longer by a known amount.
      let retakeBudget = Math.ceil((options.rounds * definition.cases.length * selected.length) / 2);
      let quietWaitBudgetMs = QUIET_WAIT_BUDGET_MS;
      /** Warm-up plus measurement, retaken while other processes disturb it (within the budgets). */
      type Measured = { measurement: LoadMeasurement; counters: CounterReading | undefined; retakes: number; clean: boolean };
      const measure = async (variant: VariantDefinition<Env>, loadCase: LoadCase, where: string): Promise<Measured> => {
        for (let retakes = 0; ; retakes += 1) {
          if (options.warmupSeconds > 0) await load(variant, loadCase, options.warmupSeconds);
          // perf counts exactly around the measured load: enabled right before it, disabled right after.
          const session = await openCounters(variant, where);
          let measurement: LoadMeasurement;
          try {
            measurement = await load(variant, loadCase, options.durationSeconds);
          } catch (error) {
            await session?.abort();
            throw error;
          }
          let counters: CounterReading | undefined;
          if (session) {
            try {
              counters = await session.close();
              if (counters.notes.length > 0) problems.push(`${where}: perf: ${counters.notes.join('; ')}`);
            } catch (error) {
              counterFailed(where, error);
            }
          }
          const other = measurement.otherCpuSeconds / measurement.wallSeconds;
          if (options.otherCpuLimit <= 0 || other <= options.otherCpuLimit) return { measurement, counters, retakes, clean: true };
          if (retakes >= options.retries || retakeBudget === 0) {
            problems.push(`${where}: other processes used ${percent(other)} of a core during the measurement (kept after ${retakes} retakes)`);
            return { measurement, counters, retakes, clean: false };
          }
          retakeBudget -= 1;
          ctx.log(`${where}: other processes used ${percent(other)} of a core meanwhile; measuring again once the machine is quiet`);
          quietWaitBudgetMs -= await waitForQuiet(options.otherCpuLimit, Math.min(QUIET_WAIT_MS, Math.max(0, quietWaitBudgetMs)));
        }
      };

      const samples = new Map<string, RoundSample[]>();
      const key = (variant: string, loadCase: string): string => `${variant}\u0000${loadCase}`;
      for (let round = 0; round < options.rounds; round += 1) {
        if (options.freshProcesses && round > 0) {
          ctx.log(`round ${round + 1}/${options.rounds}: new processes for every variant (--fresh-processes)`);
          await stopVariants();
          await startVariants();
          await initialWarmup();
        }
        for (const loadCase of definition.cases) {
          for (const [slot, variant] of rotate(selected, round).entries()) {
            const where = `round ${round + 1}/${options.rounds} ${loadCase.label} ${variant.label}`;
            const { measurement, counters, retakes, clean } = await measure(variant, loadCase, where);
            const proxyCpuSeconds = measurement.cpuSeconds['proxy'];
            const requestsPerCpuSecond = proxyCpuSeconds === undefined || proxyCpuSeconds === 0 ? undefined : measurement.requests / proxyCpuSeconds;
            const perRequest = (count: number | undefined): number | undefined => (count === undefined || measurement.requests === 0 ? undefined : count / measurement.requests);
            const cyclesPerRequest = perRequest(counters?.cycles);
            const instructionsPerRequest = perRequest(counters?.instructions);
            const list = samples.get(key(variant.name, loadCase.name)) ?? [];
            list.push({ round, slot, retakes, clean, measurement, proxyCpuSeconds, requestsPerCpuSecond, counters, cyclesPerRequest, instructionsPerRequest });
            samples.set(key(variant.name, loadCase.name), list);
            const cpuNote = proxyCpuSeconds === undefined ? '' : `, proxy ${proxyCpuSeconds.toFixed(2)} CPU-s, ${formatNumber(requestsPerCpuSecond)} req/CPU-s`;
            const counterNote = counters === undefined ? '' : `, ${formatNumber(cyclesPerRequest)} cycles/req, ${formatNumber(instructionsPerRequest)} instr/req`;
            ctx.log(`${where}: ${formatNumber(measurement.requestsPerSecond)} req/s, p50 ${formatNumber(measurement.p50Ms, 2)} ms, p99 ${formatNumber(measurement.p99Ms, 2)} ms${cpuNote}${counterNote}`);
            if (measurement.requests === 0) throw new Error(`${variant.label} completed no request (${loadCase.label})`);
            if (measurement.errors > 0 || measurement.unexpected > 0) {
              problems.push(`${where}: ${measurement.errors} errors (${measurement.timeouts} timeouts), ${measurement.unexpected} responses of an unexpected status`);
            }
          }
        }
      }
      for (const problem of problems) ctx.log(`warning: ${problem}`);

      const reports = definition.cases.map((loadCase) =>
        reportCase(definition, selected, loadCase, (variant) => samples.get(key(variant, loadCase.name)) ?? [], observed, options.rounds, ctx.counters.available));
      const baseLabel = selected.find((v) => v.name === definition.baseline)?.label ?? definition.baseline;
      const intro = ctx.counters.available
        ? [`cycles/req and instr/req: hardware counters of the proxy process (perf stat) ÷ requests completed; their ratio columns are ${baseLabel} ÷ variant, so above 1 is better, as for req/s and req/CPU-s (for p50 and p99 below 1 is better).\n`]
        : [];
      return {
        name: definition.name,
        title: definition.title,
        markdown: [...intro, ...reports.flatMap((r) => r.markdown)].join('\n'),
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
