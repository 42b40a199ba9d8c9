import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { processTree } from './cpu';

/**
 * `--pin`: the proxy under test on one core, everything else of the measurement (the bench
 * process, which is the load generator, and the upstream) on another. On a 2-core machine the
 * three busy processes otherwise share both cores, so a proxy's CPU-seconds include time it was
 * on a core while its caches and the branch predictor were warm for someone else, and how much
 * of that it got depended on the scheduler, not on the proxy. Every variant's proxy gets the
 * same core, so the comparison stays fair. Needs `taskset` (util-linux).
 */
export interface CpuPinning {
  /** Core of the proxy process (and its threads and descendants). */
  readonly proxyCpu: number;
  /** Core of the bench process (load generator) and the upstream. */
  readonly restCpu: number;
}

/** The cores to pin to, or why pinning is not possible here (the run then refuses to start). */
export function planCpuPinning(): CpuPinning | string {
  if (availableParallelism() < 2) return 'pinning needs at least 2 cores';
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
  } catch {
    return 'taskset (util-linux) is not available';
  }
  // The last two cores: the proxy on the last, the rest on the one before.
  const cores = availableParallelism();
  return { proxyCpu: cores - 1, restCpu: cores - 2 };
}

/**
 * Pins a process, every thread it has now (`-a`) and its live descendants to one core. Threads
 * started later inherit the mask of the thread that starts them.
 */
export function pinProcessTree(pid: number, cpu: number): void {
  for (const member of processTree(pid)) {
    execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(member)], { stdio: 'ignore' });
  }
}

/** Lets the bench process (and its threads) run on every core again, after a scenario that pinned it. */
export function unpinBenchProcess(): void {
  execFileSync('taskset', ['-a', '-p', '-c', `0-${availableParallelism() - 1}`, String(process.pid)], { stdio: 'ignore' });
}

/** The core a process may run on, as taskset prints it ("0", "1", "0,1", "0-1"): for the log. */
export function cpuListOf(pid: number): string {
  const text = execFileSync('taskset', ['-c', '-p', String(pid)], { encoding: 'utf8' });
  return text.slice(text.lastIndexOf(':') + 1).trim();
}
