import fc from 'fast-check';

/** How a fuzz run is sized and replayed: FUZZ_SEED, FUZZ_RUNS, FUZZ_PATH and FUZZ_SHRINK. */
export interface FuzzSettings {
  /** fast-check seeds are 32-bit signed integers (it reports them that way); random unless FUZZ_SEED. */
  readonly seed: number;
  readonly runs: number;
  /** A failure's counterexample path: with the same seed it replays only that case. */
  readonly path: string | undefined;
  /** Shrink a failure to a smaller case (off by default: every shrink step drives a real gateway). */
  readonly shrink: boolean;
}

function integerSetting(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer of at least ${min}, got "${text}"`);
  return value;
}

export function fuzzSettings(defaultRuns: number, env: NodeJS.ProcessEnv = process.env): FuzzSettings {
  return {
    seed: integerSetting('FUZZ_SEED', env.FUZZ_SEED, -0x80000000) ?? (Date.now() ^ (Math.random() * 0x100000000)) | 0,
    runs: integerSetting('FUZZ_RUNS', env.FUZZ_RUNS, 1) ?? defaultRuns,
    path: env.FUZZ_PATH === '' ? undefined : env.FUZZ_PATH,
    shrink: env.FUZZ_SHRINK === '1',
  };
}

/**
 * The node:test timeout for a fuzz test, so a long run (`npm run fuzz`, which passes no
 * --test-timeout) is bounded by its size while a case that hangs still fails it. Under
 * tools/scripts/run-tests.mjs the runner's --test-timeout (120 s) caps it. `perCaseMs` is a
 * generous bound on one case, not a speed expectation.
 */
export function fuzzTestTimeoutMs(settings: FuzzSettings, perCaseMs: number): number {
  return 60_000 + settings.runs * perCaseMs;
}

/**
 * Runs a fuzz property with the given settings. A failure names the seed, the counterexample and
 * the command that replays exactly that case.
 */
export async function runFuzz<T>(property: fc.IAsyncPropertyWithHooks<T>, settings: FuzzSettings, testFile: string): Promise<void> {
  const details = await fc.check(property, { seed: settings.seed, numRuns: settings.runs, path: settings.path, endOnFailure: !settings.shrink, verbose: fc.VerbosityLevel.None });
  if (!details.failed) return;
  const replay = `FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ''} node tools/scripts/run-tests.mjs --e2e ${testFile}`;
  const error = details.errorInstance instanceof Error ? details.errorInstance : new Error(String(details.errorInstance));
  throw new Error(
    `fuzz case failed after ${details.numRuns} run(s), seed ${details.seed}\n` +
      `replay: ${replay}\n` +
      `counterexample: ${fc.stringify(details.counterexample)}\n` +
      `error: ${error.message}`,
    { cause: error },
  );
}
