// The gateway benchmark: node tools/bench/dist/main.js [--help]. See tools/bench/README.md.
// A measurement, not a test: it exits 0 whatever the numbers are, and non-zero only when something
// failed to run.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkCounterSupport, describeCounterSupport } from './harness/counters';
import { planCpuPinning, unpinBenchProcess, type CpuPinning } from './harness/cpu-pinning';
import { checkPlatform, machineInfo } from './harness/environment';
import { ProcessRegistry } from './harness/processes';
import { formatGoal } from './harness/report';
import type { BenchOptions, GoalCheck, HarnessContext, JsonValue, ScenarioResult } from './harness/types';
import { isSelected, parseOptions, usage } from './options';
import { SCENARIOS } from './scenarios';

const registries = new Set<ProcessRegistry>();
const killEverything = (): void => {
  for (const registry of registries) registry.killAllNow();
};
process.on('exit', killEverything);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping servers\n`);
    killEverything();
    process.exit(130);
  });
}

const log = (message: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

function settingsLine(options: BenchOptions): string {
  return `${options.connections} connections (autocannon, keep-alive, pipelining 1${options.rate > 0 ? `, ${options.rate} requests a second offered in all (open loop)` : ''}); ${options.durationSeconds} s measured per scenario, body and round; ` +
    `${options.rounds} interleaved rounds (order rotated each round), medians; ${options.warmupSeconds} s warm-up before each measurement, ` +
    `${options.initialWarmupSeconds} s initial warm-up per scenario and body; ` +
    (options.otherCpuLimit > 0 && options.retries > 0
      ? `a measurement is retaken (up to ${options.retries} times) when other processes used more than ${Math.round(options.otherCpuLimit * 100)} % of a core meanwhile`
      : 'no retakes when the machine is busy') +
    (options.pin ? '; the proxy pinned to one core, the load generator and the upstream to another (--pin)' : '') +
    (options.freshProcesses ? '; new processes for every variant at each round, warmed up again (--fresh-processes)' : '');
}

async function main(): Promise<number> {
  let options: BenchOptions | undefined;
  try {
    options = parseOptions(process.argv.slice(2), SCENARIOS);
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n`);
    return 2;
  }
  if (!options) {
    process.stdout.write(usage(SCENARIOS));
    return 0;
  }
  checkPlatform();
  let pinning: CpuPinning | undefined;
  if (options.pin) {
    const plan = planCpuPinning();
    if (typeof plan === 'string') {
      process.stderr.write(`bench: --pin: ${plan}\n`);
      return 2;
    }
    pinning = plan;
  }
  const selectedOptions = options;
  const machine = machineInfo();
  const started = new Date();
  const scenarios = SCENARIOS.filter((s) => s.variantNames.some((v) => isSelected(selectedOptions.only, s.name, v)));
  log(`node ${machine.node}, ${machine.cores} cores (${machine.cpuModel}), load average ${machine.loadAverageAtStart.join(' ')}`);
  // Checked once: without perf (or without hardware counters in this VM) the run carries on with
  // CPU-seconds only, and the report says so once.
  const counters = checkCounterSupport();
  log(`hardware counters: ${describeCounterSupport(counters)}`);
  if (options.profileDir) {
    mkdirSync(options.profileDir, { recursive: true });
    log(`profiling: servers under test run with --cpu-prof, profiles go to ${options.profileDir} (the numbers are not representative)`);
  }

  const results: ScenarioResult[] = [];
  const failures: Array<{ scenario: string; error: string }> = [];
  for (const scenario of scenarios) {
    const registry = new ProcessRegistry();
    registries.add(registry);
    const ctx: HarnessContext = {
      options,
      processes: registry,
      counters,
      pinning,
      log: (message) => log(`${scenario.name}: ${message}`),
      variantSelected: (s, v) => isSelected(selectedOptions.only, s, v),
    };
    log(`${scenario.name}: ${scenario.title}`);
    try {
      results.push(await scenario.run(ctx));
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(`${scenario.name} failed: ${message}`);
      failures.push({ scenario: scenario.name, error: message });
    } finally {
      await registry.stopAll();
      registries.delete(registry);
      if (pinning !== undefined) unpinBenchProcess();
    }
  }

  const finished = new Date();
  const out: string[] = [];
  out.push(`Run ${started.toISOString()} (${Math.round((finished.getTime() - started.getTime()) / 1000)} s); ${machine.cores} cores (${machine.cpuModel}), ` +
    `node ${machine.node}, ${machine.platform}, autocannon ${machine.autocannon}, load average at start ${machine.loadAverageAtStart.join(' ')}; ` +
    `gateway build of ${machine.gatewayBuiltAt ?? 'unknown'}.`);
  out.push(`Settings: ${settingsLine(options)}.`);
  out.push(`Hardware counters: ${describeCounterSupport(counters)}.`);
  out.push('');
  const goals: GoalCheck[] = [];
  for (const result of results) {
    out.push(`### ${result.title}\n`);
    out.push(result.markdown);
    goals.push(...result.goals);
  }
  if (goals.length > 0) {
    out.push('Goals:');
    for (const goal of goals) out.push(`- ${formatGoal(goal)}`);
  }
  for (const failure of failures) out.push(`\nFAILED: ${failure.scenario}: ${failure.error.split('\n')[0]}`);
  process.stdout.write(`${out.join('\n')}\n`);

  const json: JsonValue = {
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    machine: { ...machine, loadAverageAtStart: [...machine.loadAverageAtStart] },
    settings: {
      durationSeconds: options.durationSeconds,
      warmupSeconds: options.warmupSeconds,
      initialWarmupSeconds: options.initialWarmupSeconds,
      rounds: options.rounds,
      connections: options.connections,
      rate: options.rate,
      otherCpuLimit: options.otherCpuLimit,
      retries: options.retries,
      freshProcesses: options.freshProcesses,
      only: [...options.only],
      profiling: options.profileDir !== undefined,
      pinning: pinning === undefined ? null : { proxyCpu: pinning.proxyCpu, restCpu: pinning.restCpu },
    },
    hardwareCounters: counters.available
      ? { available: true, perf: counters.perf, events: [...counters.events], userOnly: counters.userOnly }
      : { available: false, reason: counters.reason },
    goals: goals.map((g) => ({ description: g.description, value: g.value ?? null, atLeast: g.atLeast ?? null, below: g.below ?? null, rounds: g.rounds ?? null, ...(g.interval === undefined ? {} : { interval: g.interval }), met: g.met ?? null })),
    scenarios: Object.fromEntries(results.map((r) => [r.name, { title: r.title, ...(r.data as Record<string, JsonValue>) }])),
    failures,
  };
  mkdirSync(path.dirname(options.resultsPath), { recursive: true });
  writeFileSync(options.resultsPath, `${JSON.stringify(json, null, 2)}\n`);
  log(`results written to ${path.relative(process.cwd(), options.resultsPath) || options.resultsPath}`);
  return failures.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
