import path from 'node:path';
import type { BenchOptions } from './harness/types';
import type { Scenario } from './harness/types';

export const DEFAULTS = {
  durationSeconds: 3,
  warmupSeconds: 1,
  initialWarmupSeconds: 3,
  rounds: 5,
  connections: 50,
  otherCpuLimit: 0.1,
  retries: 2,
  rate: 0,
} as const;

export const RESULTS_PATH = path.resolve(__dirname, '..', 'results', 'latest.json');

export function usage(scenarios: readonly Scenario[]): string {
  const list = scenarios.map((s) => `  ${s.name} (${s.variantNames.join(', ')})\n      ${s.description}`).join('\n');
  return `usage: node tools/bench/dist/main.js [options]     (or: npm run bench -- [options])

  --duration <s>          measured seconds per variant, case and round   (default ${DEFAULTS.durationSeconds})
  --warmup <s>            unmeasured seconds right before each measurement (default ${DEFAULTS.warmupSeconds})
  --initial-warmup <s>    unmeasured seconds per variant and case before round 1 (default ${DEFAULTS.initialWarmupSeconds})
  --rounds <n>            interleaved rounds; the report shows medians    (default ${DEFAULTS.rounds})
  --connections <n>       concurrent keep-alive connections (autocannon) (default ${DEFAULTS.connections})
  --other-cpu-limit <f>   retake a measurement when other processes used more than this share of
                          one core meanwhile (0 disables)                  (default ${DEFAULTS.otherCpuLimit})
  --retries <n>           retakes per measurement at most (and half the measurements per
                          scenario in all)                                 (default ${DEFAULTS.retries})
  --rate <n>              load comparisons: offer n requests a second in all (spread over the
                          connections, autocannon's overallRate) instead of a closed loop, the
                          same n for every variant; 0 is the closed loop  (default ${DEFAULTS.rate})
  --only <list>           comma-separated scenario or scenario/variant names (default: everything)
  --profile <dir>         run the servers under test with --cpu-prof, profiles written to <dir> on exit
  --json <file>           where to write the results                      (default tools/bench/results/latest.json)
  --pin                   load comparisons: the proxy on one core, the load generator and the
                          upstream on another (taskset), the same for every variant
  --fresh-processes       load comparisons: new processes for every variant at each round, warmed
                          up again (the rounds then sample process-to-process differences too)
  --help

scenarios:
${list}
`;
}

function positive(flag: string, text: string | undefined, integer: boolean, allowZero = false): number {
  const value = Number(text);
  if (text === undefined || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0) || (integer && !Number.isInteger(value))) {
    throw new Error(`${flag} needs a ${integer ? 'whole ' : ''}number${allowZero ? '' : ' above 0'}, got ${text ?? 'nothing'}`);
  }
  return value;
}

/** Parses argv; returns undefined for --help. Throws on anything it does not understand. */
export function parseOptions(argv: readonly string[], scenarios: readonly Scenario[]): BenchOptions | undefined {
  let durationSeconds: number = DEFAULTS.durationSeconds;
  let warmupSeconds: number = DEFAULTS.warmupSeconds;
  let initialWarmupSeconds: number = DEFAULTS.initialWarmupSeconds;
  let rounds: number = DEFAULTS.rounds;
  let connections: number = DEFAULTS.connections;
  let otherCpuLimit: number = DEFAULTS.otherCpuLimit;
  let retries: number = DEFAULTS.retries;
  let rate: number = DEFAULTS.rate;
  let only: string[] = [];
  let profileDir: string | undefined;
  let resultsPath = RESULTS_PATH;
  let pin = false;
  let freshProcesses = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case '--help':
      case '-h':
        return undefined;
      case '--duration': durationSeconds = positive(flag, value(), false); break;
      case '--warmup': warmupSeconds = positive(flag, value(), false, true); break;
      case '--initial-warmup': initialWarmupSeconds = positive(flag, value(), false, true); break;
      case '--rounds': rounds = positive(flag, value(), true); break;
      case '--connections': connections = positive(flag, value(), true); break;
      case '--other-cpu-limit': otherCpuLimit = positive(flag, value(), false, true); break;
      case '--retries': retries = positive(flag, value(), true, true); break;
      case '--rate': rate = positive(flag, value(), true, true); break;
      case '--only': only = (value() ?? '').split(',').map((s) => s.trim()).filter((s) => s !== ''); break;
      case '--profile': profileDir = path.resolve(value() ?? 'profiles'); break;
      case '--json': resultsPath = path.resolve(value() ?? RESULTS_PATH); break;
      case '--pin':
        if (inline !== undefined) throw new Error('--pin takes no value');
        pin = true;
        break;
      case '--fresh-processes':
        if (inline !== undefined) throw new Error('--fresh-processes takes no value');
        freshProcesses = true;
        break;
      default:
        throw new Error(`unknown argument ${arg} (try --help)`);
    }
  }
  for (const filter of only) {
    const [scenarioName, variantName] = filter.split('/');
    const scenario = scenarios.find((s) => s.name === scenarioName);
    if (!scenario) throw new Error(`--only ${filter}: no scenario "${scenarioName}" (have: ${scenarios.map((s) => s.name).join(', ')})`);
    if (variantName !== undefined && !scenario.variantNames.includes(variantName)) {
      throw new Error(`--only ${filter}: scenario ${scenarioName} has no variant "${variantName}" (have: ${scenario.variantNames.join(', ')})`);
    }
  }
  return { durationSeconds, warmupSeconds, initialWarmupSeconds, rounds, connections, rate, otherCpuLimit, retries, only, profileDir, resultsPath, pin, freshProcesses };
}

/** Whether `--only` keeps this scenario/variant. */
export function isSelected(only: readonly string[], scenario: string, variant?: string): boolean {
  if (only.length === 0) return true;
  return only.some((filter) => {
    const [s, v] = filter.split('/');
    return s === scenario && (v === undefined || variant === undefined || v === variant);
  });
}
