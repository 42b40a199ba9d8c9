// Preloaded with `node --require` into the data plane by the reload scenario (like
// orphan-guard.ts), when BENCH_MAIN_THREAD_STEPS names a file: how long the main thread holds its
// event loop, measured from inside without touching the gateway's code. A 1 ms timer reads the
// main thread's CPU time (main-thread-cpu.ts) at every turn it gets: the CPU spent between two
// turns is what ran in between (one slice of a reload, a batch of requests, a GC pause), so the
// largest such gap is the longest main-thread step, to within the 1 ms tick, and independent of
// how busy the machine is. The wall-clock gap between turns (the event-loop delay, which also
// counts other processes' turns on the core) and the longest GC pause are kept beside it.
// Every 250 ms one JSON line is appended to the file (see MainThreadWindow).
import { openSync, writeSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';
import { mainThreadCpuClock } from './main-thread-cpu';

/** One line of the file: the 250 ms ending at `t` (epoch ms). */
export interface MainThreadWindow {
  t: number;
  /** Most main-thread CPU between two timer turns, ms. */
  maxCpuMs: number;
  /** Longest wall-clock gap between two timer turns, ms (the 1 ms interval included). */
  maxWallMs: number;
  /** Longest GC pause, ms. */
  maxGcMs: number;
  /** The main thread's CPU time since it started, ms (differences give a phase's total). */
  cpuMs: number;
  /** Whether cpuMs is the main thread's alone (false: the whole process, where /proc is missing). */
  perThread: boolean;
}

const WINDOW_MS = 250;

function monitor(file: string): void {
  const out = openSync(file, 'a');
  const clock = mainThreadCpuClock();
  let lastCpu = clock.now();
  let lastWall = performance.now();
  let windowEnd = lastWall + WINDOW_MS;
  let maxCpuMs = 0;
  let maxWallMs = 0;
  let maxGcMs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) maxGcMs = Math.max(maxGcMs, entry.duration);
  }).observe({ type: 'gc' });
  setInterval(() => {
    const cpu = clock.now();
    const wall = performance.now();
    maxCpuMs = Math.max(maxCpuMs, cpu - lastCpu);
    maxWallMs = Math.max(maxWallMs, wall - lastWall);
    lastCpu = cpu;
    lastWall = wall;
    if (wall < windowEnd) return;
    const line: MainThreadWindow = { t: Date.now(), maxCpuMs, maxWallMs, maxGcMs, cpuMs: cpu, perThread: clock.perThread };
    writeSync(out, `${JSON.stringify(line)}\n`);
    maxCpuMs = 0;
    maxWallMs = 0;
    maxGcMs = 0;
    windowEnd = wall + WINDOW_MS;
    // The write is this turn's own work: the next gap starts after it.
    lastCpu = clock.now();
    lastWall = performance.now();
  }, 1).unref();
}

const file = process.env['BENCH_MAIN_THREAD_STEPS'];
// Worker threads inherit `--require` and the environment: a worker's monitor would read the main
// thread's CPU clock from a timer that waits while the worker parses, and log the main thread's
// whole CPU over that parse as one "step" (up to 744 ms under traffic in the 18:45 run of this day).
if (isMainThread && file !== undefined && file !== '') monitor(file);
