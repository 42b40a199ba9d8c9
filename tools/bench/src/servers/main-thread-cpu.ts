import { openSync, readSync } from 'node:fs';

/**
 * CPU time of this process's main thread, in milliseconds: Linux's per-thread scheduler counter
 * (`/proc/self/task/<pid>/schedstat`, nanoseconds; the main thread's id is the process id), read
 * through a descriptor kept open. Unlike wall time it does not grow while other processes have the
 * core, and unlike process.cpuUsage() it leaves out worker threads and libuv's pool (Node 20 has no
 * process.threadCpuUsage). Falls back to process.cpuUsage() where the file is missing.
 */
export function mainThreadCpuClock(): { readonly perThread: boolean; now(): number } {
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
  } catch {
    fd = undefined;
  }
  if (fd === undefined) {
    return {
      perThread: false,
      now: () => {
        const used = process.cpuUsage();
        return (used.user + used.system) / 1000;
      },
    };
  }
  const descriptor = fd;
  const buffer = Buffer.alloc(128);
  return {
    perThread: true,
    now: () => {
      const length = readSync(descriptor, buffer, 0, buffer.length, 0);
      const text = buffer.toString('latin1', 0, length);
      return Number(text.slice(0, text.indexOf(' '))) / 1e6;
    },
  };
}
