import { existsSync, readFileSync, rmSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';

/**
 * `<dataDir>/gateway.pid`: the pid of the gateway serving with that data directory, written once
 * it listens. `config:reload` signals it; a second `gateway start` on the same data directory
 * refuses while it names a live process.
 */

/** The pid a pid file names, or undefined when the file is missing or holds no pid. */
export async function readPidFile(file: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parsePid(text);
}

function parsePid(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^\d{1,10}$/.test(trimmed)) return undefined;
  const pid = Number(trimmed);
  return pid > 0 && Number.isSafeInteger(pid) ? pid : undefined;
}

/** Signal 0 checks existence; EPERM means the process exists but belongs to someone else. */
export function isProcessAlive(pid: number): boolean {
  // kill(0) or a negative pid would address a process group, never ask about those.
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * False when the process is known not to be a gateway: a pid file outliving its gateway can name
 * a recycled pid, and SIGHUP terminates most programs. Where /proc is unavailable, it cannot tell
 * and says true.
 */
export function looksLikeGateway(pid: number): boolean {
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT' || !existsSync('/proc/self');
  }
  return /gateway/.test(cmdline);
}

export type PidFileClaim = { claimed: true } | { claimed: false; holder: number };

/**
 * Creates the pid file with O_EXCL so two gateways cannot both win; a file naming a dead process
 * (or garbage, or us) is stale and replaced.
 */
export async function claimPidFile(file: string, pid: number): Promise<PidFileClaim> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      await writeFile(file, `${pid}\n`, { flag: 'wx', mode: 0o644 });
      return { claimed: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readPidFile(file);
    if (holder !== undefined && holder !== pid && isProcessAlive(holder) && looksLikeGateway(holder)) return { claimed: false, holder };
    await rm(file, { force: true });
  }
  throw new Error(`could not create ${file}: it keeps reappearing`);
}

/** Who holds the pid file right now, if a live process other than `self` does. */
export async function livePidFileHolder(file: string, self: number): Promise<number | undefined> {
  const holder = await readPidFile(file);
  return holder !== undefined && holder !== self && isProcessAlive(holder) && looksLikeGateway(holder) ? holder : undefined;
}

/** Removes the pid file if it still names `pid` (synchronous: also used on a forced exit). */
export function releasePidFile(file: string, pid: number): void {
  try {
    if (parsePid(readFileSync(file, 'utf8')) === pid) rmSync(file, { force: true });
  } catch {
    // Already gone, or unreadable: nothing of ours to remove.
  }
}
