import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

let clockTicks: number | undefined;

/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`, 100 on Linux). */
export function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      const value = Number.parseInt(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim(), 10);
      clockTicks = Number.isFinite(value) && value > 0 ? value : 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** utime + stime of one process (all its threads), in clock ticks. */
function ownTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may contain spaces: split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  return Number(fields[11]) + Number(fields[12]);
}

/** Milliseconds one process (all its threads) spent in the kernel (stime), at the 10 ms resolution of /proc/<pid>/stat. */
export function kernelMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[12]) * 1000) / clockTicksPerSecond();
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text !== '') children.push(...text.split(' ').map(Number));
    }
  } catch {
    // no /proc/<pid>/task/*/children on this kernel, or the process is gone
  }
  return children;
}

/** A process and its live descendants (the proxy and whatever it may have forked), parents first. */
export function processTree(pid: number): number[] {
  const tree: number[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    const next = pending.shift() as number;
    tree.push(next);
    pending.push(...childrenOf(next));
  }
  return tree;
}

/**
 * CPU time of a process and its live descendants, in clock ticks. The gateway is started through
 * its CLI; should that ever fork a worker, its CPU is still charged to "the proxy".
 */
export function cpuTicks(pid: number): number {
  let total = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const next = pending.pop() as number;
    try {
      total += ownTicks(next);
    } catch {
      if (next === pid) throw new Error(`cannot read CPU time of process ${pid} (has it exited?)`);
      continue;
    }
    pending.push(...childrenOf(next));
  }
  return total;
}

export function ticksToSeconds(ticks: number): number {
  return ticks / clockTicksPerSecond();
}

/**
 * CPU time the whole machine spent running tasks (user, nice, system) or lost to the hypervisor
 * (steal), in clock ticks, from the first line of /proc/stat. Interrupt time is left out: the
 * loopback traffic of the bench itself shows up there.
 */
export function machineBusyTicks(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] as string;
  const [, user, nice, system, , , , , steal] = line.trim().split(/\s+/).map(Number);
  return (user ?? 0) + (nice ?? 0) + (system ?? 0) + (steal ?? 0);
}

/**
 * Steal time per core (`cpu0`, `cpu1`... lines of /proc/stat), in clock ticks: time the hypervisor
 * ran something else while this vCPU had work. A proxy pinned to a core loses exactly that core's
 * steal, which stretches no process's CPU time but cuts the requests a round can serve.
 */
export function stealTicksPerCore(): number[] {
  const out: number[] = [];
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    if (!/^cpu\d/.test(line)) continue;
    out.push(Number(line.trim().split(/\s+/)[8] ?? 0));
  }
  return out;
}

/**
 * Waits until the machine has been (nearly) idle for one second — busy below `limitCores` while
 * the processes under test are idle — or until `maxMs` has passed. Resolves with the ms waited.
 */
export async function waitForQuiet(limitCores: number, maxMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < maxMs) {
    const before = machineBusyTicks();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (ticksToSeconds(machineBusyTicks() - before) <= limitCores) break;
  }
  return Date.now() - started;
}
