import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { MainThreadWindow } from '../servers/main-thread-steps';

/** Node flags that preload the main-thread monitor (servers/main-thread-steps.ts); it writes to the file named by this variable. */
export const MAIN_THREAD_STEPS_ENV = 'BENCH_MAIN_THREAD_STEPS';
export const MAIN_THREAD_STEPS_FLAGS: readonly string[] = ['--require', path.join(__dirname, '..', 'servers', 'main-thread-steps.js')];
/** The monitor's tick (a line covers the 250 ms before its time). */
const TICK_MS = 1;

/** What the main thread did between two moments, from the monitor's lines. */
export interface MainThreadSummary {
  /** Longest main-thread step, CPU ms (to within the 1 ms tick). */
  readonly longestStepCpuMs: number;
  /** Worst event-loop delay, wall ms (the gap between two 1 ms timer turns, less the interval). */
  readonly worstLoopDelayMs: number;
  readonly longestGcMs: number;
  /** The main thread's CPU time over the interval, ms. */
  readonly cpuMs: number;
  readonly perThread: boolean;
}

export function readMainThreadWindows(file: string): MainThreadWindow[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as MainThreadWindow);
}

/**
 * The windows that end in (fromMs, toMs] (epoch ms): the window running at `fromMs` counts, the one
 * running at `toMs` does not (a caller that scrapes /metrics right after `toMs` keeps that scrape
 * out); undefined when the monitor wrote none there.
 */
export function mainThreadBetween(windows: readonly MainThreadWindow[], fromMs: number, toMs: number): MainThreadSummary | undefined {
  const inside = windows.filter((w) => w.t > fromMs && w.t <= toMs);
  if (inside.length === 0) return undefined;
  const before = [...windows].reverse().find((w) => w.t <= fromMs);
  const first = inside[0] as MainThreadWindow;
  const last = inside[inside.length - 1] as MainThreadWindow;
  return {
    longestStepCpuMs: Math.max(...inside.map((w) => w.maxCpuMs)),
    worstLoopDelayMs: Math.max(0, Math.max(...inside.map((w) => w.maxWallMs)) - TICK_MS),
    longestGcMs: Math.max(...inside.map((w) => w.maxGcMs)),
    cpuMs: last.cpuMs - (before ?? first).cpuMs,
    perThread: last.perThread,
  };
}
