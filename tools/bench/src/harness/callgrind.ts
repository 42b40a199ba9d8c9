import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const VALGRIND = process.env['BENCH_VALGRIND'] ?? 'valgrind';
const CONTROL_TIMEOUT_MS = 120_000;

/** `valgrind --version`, or why valgrind cannot be used here. */
export function valgrindVersion(): { readonly available: true; readonly version: string } | { readonly available: false; readonly reason: string } {
  const probe = spawnSync(VALGRIND, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return { available: false, reason: `${VALGRIND} --version failed: ${probe.error?.message ?? probe.stderr}` };
  const control = spawnSync('callgrind_control', ['--version'], { encoding: 'utf8' });
  if (control.error) return { available: false, reason: `callgrind_control is missing: ${control.error.message}` };
  return { available: true, version: probe.stdout.trim() };
}

/**
 * The command a process runs under to have its instructions counted by callgrind. Instrumentation
 * starts off (startup runs several times faster) and collection is steered by `CallgrindProcess`:
 * every thread's instructions are summed (V8's compiler and GC threads, libuv's pool), which is
 * what a request really costs.
 */
export function callgrindWrapper(outDir: string, name: string): string[] {
  return [VALGRIND, '--tool=callgrind', '--instr-atstart=no', '--dump-instr=no', '--compress-strings=no', `--callgrind-out-file=${path.join(outDir, `${name}.%p`)}`];
}

/** Steers callgrind in a running process through callgrind_control and reads its dumps. */
export class CallgrindProcess {
  private dumps = 0;

  constructor(
    private readonly pid: number,
    private readonly outDir: string,
    private readonly name: string,
  ) {}

  /** Turns instrumentation on (it started off); the next `zero` starts a clean count. */
  instrument(): void {
    this.control(['--instr=on']);
  }

  /** Sets the counters to zero. */
  zero(): void {
    this.control(['--zero']);
  }

  /** Dumps the counters (and zeroes them) and returns the instructions executed since the last zero or dump. */
  dump(): number {
    this.control(['--dump']);
    this.dumps += 1;
    const file = path.join(this.outDir, `${this.name}.${this.pid}.${this.dumps}`);
    const present = readdirSync(this.outDir);
    if (!present.includes(path.basename(file))) throw new Error(`callgrind dump ${file} is missing (have ${present.join(', ')})`);
    return totalInstructions(readFileSync(file, 'utf8'), file);
  }

  private control(args: readonly string[]): void {
    // callgrind_control waits until the process has picked the command up (it polls while running code).
    execFileSync('callgrind_control', [...args, String(this.pid)], { timeout: CONTROL_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
  }
}

/** The `totals:` (or `summary:`) line of a callgrind dump: instructions (Ir), the only event collected. */
export function totalInstructions(dump: string, file: string): number {
  const match = /^(?:totals|summary):\s+(\d+)/m.exec(dump);
  if (!match) throw new Error(`${file} has no totals line`);
  return Number(match[1]);
}

/** Runs `node <script> <args>` to its end under callgrind and returns its instructions (Ir), every thread summed. */
export async function countInstructions(outDir: string, name: string, script: string, args: readonly string[]): Promise<number> {
  const file = path.join(outDir, `${name}.out`);
  await new Promise<void>((resolve, reject) => {
    execFile(VALGRIND, ['--tool=callgrind', '--dump-instr=no', `--callgrind-out-file=${file}`, process.execPath, script, ...args], { timeout: 30 * 60_000 }, (error, _stdout, stderr) =>
      error ? reject(new Error(`${name} under callgrind failed: ${error.message}\n${stderr.slice(-2000)}`)) : resolve(),
    );
  });
  return totalInstructions(readFileSync(file, 'utf8'), file);
}
