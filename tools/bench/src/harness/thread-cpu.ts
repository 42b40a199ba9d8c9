import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of every thread of a process, in nanoseconds, from /proc/<pid>/task/<tid>/schedstat
 * (its first field: time on a CPU). /proc/<pid>/stat counts in 10 ms ticks, too coarse for one
 * scrape; this counts the main thread, V8's GC helpers and libuv's pool (where gzip runs) alike.
 * Threads that ended between two readings drop out of the second.
 */
export function threadCpuNanoseconds(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ', 1)[0]);
    } catch {
      // the thread ended while we listed them
    }
  }
  return total;
}
