import fc from 'fast-check';

/** How many cases a fuzz property runs when FUZZ_RUNS is unset: small enough for `npm test`. */
export interface FuzzRunOptions {
  readonly defaultRuns: number;
  /** Names the test file in the printed reproduce command. */
  readonly testFile: string;
}

function integerSetting(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer of at least ${min}, got "${text}"`);
  return value;
}

/**
 * Runs a fuzz property with the seed, run count and replay path taken from the environment
 * (FUZZ_SEED, FUZZ_RUNS, FUZZ_PATH; FUZZ_SHRINK=1 shrinks a failure, off by default because every
 * shrink step drives a real gateway). A failure names the seed, the counterexample and the command
 * that replays exactly that case.
 */
export async function runFuzz<T>(property: fc.IAsyncPropertyWithHooks<T>, options: FuzzRunOptions): Promise<{ seed: number; runs: number }> {
  // fast-check seeds are 32-bit signed integers (it reports them that way).
  const seed = integerSetting('FUZZ_SEED', process.env.FUZZ_SEED, -0x80000000) ?? (Date.now() ^ (Math.random() * 0x100000000)) | 0;
  const runs = integerSetting('FUZZ_RUNS', process.env.FUZZ_RUNS, 1) ?? options.defaultRuns;
  const path = process.env.FUZZ_PATH === '' ? undefined : process.env.FUZZ_PATH;
  const shrink = process.env.FUZZ_SHRINK === '1';
  const details = await fc.check(property, { seed, numRuns: runs, path, endOnFailure: !shrink, verbose: fc.VerbosityLevel.None });
  if (details.failed) {
    const replay = `FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ''} node tools/scripts/run-tests.mjs --e2e ${options.testFile}`;
    const error = details.errorInstance instanceof Error ? details.errorInstance : new Error(String(details.errorInstance));
    throw new Error(
      `fuzz case failed after ${details.numRuns} run(s), seed ${details.seed}\n` +
        `replay: ${replay}\n` +
        `counterexample: ${fc.stringify(details.counterexample)}\n` +
        `error: ${error.message}`,
      { cause: error },
    );
  }
  return { seed, runs };
}
