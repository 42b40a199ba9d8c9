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
 * starts off (startup runs several times faster) and collection is steered by `CallgrindProcess`.
 * Threads are counted apart (`--separate-threads=yes`, one dump file per thread) so that a dump
 * gives both every thread's sum (V8's compiler and GC threads, libuv's pool: what a request really
 * costs) and the main thread's alone.
 */
export function callgrindWrapper(outDir: string, name: string): string[] {
  return [
    VALGRIND,
    '--tool=callgrind',
    '--instr-atstart=no',
    '--dump-instr=no',
    '--compress-strings=no',
    '--separate-threads=yes',
    ...(COUNT_COMPILATION ? [] : UNCOUNTED_COMPILATION),
    `--callgrind-out-file=${path.join(outDir, `${name}.%p`)}`,
  ];
}

/** `BENCH_CALLGRIND_COUNT_COMPILATION=1` keeps TurboFan's compilations in the count (as before 2026-11-27). */
const COUNT_COMPILATION = process.env['BENCH_CALLGRIND_COUNT_COMPILATION'] === '1';
/**
 * TurboFan's compilations (`Compiler::CompileOptimized` and `...OSR`, whatever calls them) are not
 * counted: collection is switched off on entering them and on again on leaving. Under valgrind the
 * clock runs 100-1,000x slower than the requests, so code driven by the clock (node's timer lists,
 * once-a-second windows, socket sweeps) first becomes hot during the counted batches and its one-off
 * optimisation was a third to a half of a batch (tools/bench/README.md, "Instructions under
 * callgrind"). `--toggle-collect` sets `--collect-atstart=no`, so `yes` must come after it.
 */
const UNCOUNTED_COMPILATION = ['--toggle-collect=v8::internal::Compiler::CompileOptimized*', '--collect-atstart=yes'];
/** Whether TurboFan's compilations are in the counts (`InstructionCount.compile` is 0 when they are not). */
export const COMPILATION_COUNTED = COUNT_COMPILATION;

/** Instructions (Ir) of one dump: every thread summed, the main thread's (thread 1) alone, and its timers phase. */
export interface InstructionCount {
  readonly all: number;
  readonly main: number;
  /**
   * The main thread's instructions inside libuv's timers phase (`uv__run_timers`, inclusive): every
   * JS timer and interval (a once-a-second window, the data plane's sweeps) and node's own timers
   * (the event-loop delay monitor). Work driven by the clock rather than by requests.
   */
  readonly timers: number;
  /** The main thread's TurboFan compilation (`Compiler::CompileOptimized`, inclusive): 0 unless BENCH_CALLGRIND_COUNT_COMPILATION=1. */
  readonly compile: number;
  /**
   * The main thread's garbage collection: every collection's pause (`Heap::CollectGarbage`,
   * scavenges and mark-compacts) plus incremental marking's steps (`IncrementalMarking::Step`),
   * inclusive. With node --single-threaded the collector has no threads of its own.
   */
  readonly gc: number;
  /**
   * The main thread's `Runtime_DefineKeyedOwnPropertyInLiteral` (inclusive): an object literal with a
   * computed key defined through V8's runtime instead of compiled code. node 20's `process.nextTick`
   * builds its tick object so (`{ [async_id_symbol]: ... }`, ~30 a request); in some processes its
   * inline cache ends in a state that takes this path every time, ~40k Ir a request more, depending
   * on the warm-up's timing, not on the code (tools/bench/README.md, "Why the processes settled").
   */
  readonly literalRuntime: number;
}

/** V8's runtime path for a computed-key property of an object literal (see InstructionCount.literalRuntime). */
const LITERAL_RUNTIME = 'v8::internal::Runtime_DefineKeyedOwnPropertyInLiteral(';
/** libuv's timers phase; its inclusive cost is what the clock, not the traffic, makes a process do. */
const TIMERS_PHASE = 'uv__run_timers';
/** V8's optimising compiler, entered once per function it optimises (the name is followed by its parameter list). */
const OPTIMISING_COMPILER = 'v8::internal::Compiler::CompileOptimized(';
/** V8's collector: the pauses, and the marking steps between them (summed: a step called inside a pause would count twice). */
const COLLECTOR = ['v8::internal::Heap::CollectGarbage(', 'v8::internal::IncrementalMarking::Step('] as const;

/**
 * Inclusive instructions of every call to `fn` in a callgrind dump (`--compress-strings=no`): the
 * cost line after each `cfn=<fn>` / `calls=` pair carries the call's inclusive cost as its last number.
 * A name ending in `(` matches any parameter list; recursive calls (`'2` suffixes) are inside the outer call's cost.
 */
export function inclusiveInstructions(dump: string, fn: string): number {
  const lines = dump.split('\n');
  const matches = (name: string): boolean => (fn.endsWith('(') ? name.startsWith(fn) && !/'\d+$/.test(name) : name === fn);
  let total = 0;
  for (let i = 0; i < lines.length - 2; i += 1) {
    const line = lines[i] as string;
    if (!line.startsWith('cfn=') || !matches(line.slice(4)) || !(lines[i + 1] as string).startsWith('calls=')) continue;
    const cost = (lines[i + 2] as string).trim().split(/\s+/).at(-1);
    total += Number(cost);
  }
  return total;
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

  /**
   * Dumps the counters (and zeroes them) and returns the instructions executed since the last zero
   * or dump. With `--separate-threads=yes` a dump is one file a thread, `<name>.<pid>.<n>-<thread>`
   * (thread 01 is the main thread).
   */
  dump(): InstructionCount {
    this.control(['--dump']);
    this.dumps += 1;
    const prefix = `${this.name}.${this.pid}.${this.dumps}-`;
    const present = readdirSync(this.outDir);
    const files = present.filter((f) => f.startsWith(prefix));
    const main = files.find((f) => f === `${prefix}01`);
    if (main === undefined) throw new Error(`callgrind dump ${prefix}01 is missing in ${this.outDir} (have ${present.join(', ')})`);
    const read = (file: string): string => readFileSync(path.join(this.outDir, file), 'utf8');
    const mainDump = read(main);
    return {
      all: files.reduce((sum, f) => sum + (f === main ? totalInstructions(mainDump, f) : totalInstructions(read(f), f)), 0),
      main: totalInstructions(mainDump, main),
      timers: inclusiveInstructions(mainDump, TIMERS_PHASE),
      compile: inclusiveInstructions(mainDump, OPTIMISING_COMPILER),
      gc: COLLECTOR.reduce((sum, fn) => sum + inclusiveInstructions(mainDump, fn), 0),
      literalRuntime: inclusiveInstructions(mainDump, LITERAL_RUNTIME),
    };
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
