import type { CounterSupport } from './counters';
import type { CpuPinning } from './cpu-pinning';
import type { ProcessRegistry } from './processes';

/** Command-line settings shared by every scenario. */
export interface BenchOptions {
  /** Seconds of measured load per variant, case and round. */
  readonly durationSeconds: number;
  /** Seconds of unmeasured load right before each measurement. */
  readonly warmupSeconds: number;
  /** Seconds of unmeasured load per variant and case once, before round 1 (JIT, pools). */
  readonly initialWarmupSeconds: number;
  readonly rounds: number;
  readonly connections: number;
  /**
   * `--rate`: requests a second offered over all connections (open loop, the same for every variant),
   * 0 for the closed loop. At a fixed rate every proxy serves the same load, so its CPU per request
   * is compared at equal offered load, not at whatever rate it and the load generator settled on.
   */
  readonly rate: number;
  /**
   * A measurement during which the rest of the machine used more than this share of one core
   * (other people's builds and tests) is taken again, up to `retries` times.
   */
  readonly otherCpuLimit: number;
  readonly retries: number;
  /** `--only` filters: `scenario` or `scenario/variant`; empty means everything. */
  readonly only: readonly string[];
  /** When set, proxies run with `--cpu-prof` and write their profiles here. */
  readonly profileDir?: string;
  readonly resultsPath: string;
  /** `--pin`: load comparisons pin the proxy to one core and the load generator and upstream to another. */
  readonly pin: boolean;
  /**
   * `--fresh-processes`: load comparisons start every variant's processes again for each round (and
   * warm them up again), so the rounds' spread, and the median's interval, include the differences
   * between two processes of one build (JIT state, heap layout), not only the load's.
   */
  readonly freshProcesses: boolean;
}

/** What a scenario gets from the harness. */
export interface HarnessContext {
  readonly options: BenchOptions;
  /** Every child process goes through here so the harness can kill them all at the end. */
  readonly processes: ProcessRegistry;
  /** Whether `perf stat` can count cycles and instructions here (checked once at startup). */
  readonly counters: CounterSupport;
  /** The cores of `--pin` (checked once at startup), undefined without it. */
  readonly pinning: CpuPinning | undefined;
  /** Progress on stderr (stdout carries the report). */
  log(message: string): void;
  /** Whether `--only` keeps this variant of this scenario. */
  variantSelected(scenario: string, variant: string): boolean;
}

export interface GoalCheck {
  readonly description: string;
  readonly value: number | undefined;
  /** The goal is `value >= atLeast` (ratios)... */
  readonly atLeast?: number;
  /** ...or `value < below` (latencies). */
  readonly below?: number;
  /** Lowest and highest value over the rounds used, when the value is a median of rounds. */
  readonly rounds?: { readonly low: number; readonly high: number; readonly used: number; readonly total: number };
  /**
   * The median's distribution-free confidence interval over the rounds (`medianInterval`), for a goal
   * judged by it: met when `low` reaches the goal, not met when `high` stays under it, no verdict otherwise.
   */
  readonly interval?: { readonly low: number; readonly high: number; readonly coverage: number } | null;
  /** undefined: could not be evaluated (variant not run, or, with an interval, no verdict). */
  readonly met: boolean | undefined;
}

/** JSON-serialisable details a scenario hands back for results/latest.json. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue | undefined };

export interface ScenarioResult {
  readonly name: string;
  readonly title: string;
  /** Markdown printed to stdout (tables). */
  readonly markdown: string;
  readonly goals: readonly GoalCheck[];
  readonly data: JsonValue;
}

/**
 * One benchmark scenario (one file under src/scenarios). Load comparisons are built with
 * `defineLoadComparison`; a scenario that measures something else (for example propagation
 * latency) implements `run` directly.
 */
export interface Scenario {
  readonly name: string;
  readonly title: string;
  /** One paragraph for `--help` and the README. */
  readonly description: string;
  /** Names of the variants, for `--only scenario/variant`. */
  readonly variantNames: readonly string[];
  run(ctx: HarnessContext): Promise<ScenarioResult>;
}
