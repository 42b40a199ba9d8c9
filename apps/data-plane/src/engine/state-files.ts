import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runInSlices } from './time-slices';

/** Arrays longer than this are serialized an element at a time, yielding between slices. */
const LONG_ARRAY = 64;

/**
 * JSON for a state file without holding the event loop: the snapshot of a 10,000-route table is
 * megabytes, and one JSON.stringify of it would stall every request for tens of milliseconds.
 * Top-level arrays are written one element a line; everything else as JSON.stringify would.
 */
function* jsonSteps(data: unknown): Generator<void, string, void> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return JSON.stringify(data, null, 2);
  const parts: string[] = [];
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (!Array.isArray(value) || value.length <= LONG_ARRAY) {
      parts.push(`  ${JSON.stringify(key)}: ${JSON.stringify(value, null, 2).replace(/\n/g, '\n  ')}`);
      continue;
    }
    const items: string[] = [];
    for (const item of value) {
      items.push(`    ${JSON.stringify(item) ?? 'null'}`);
      yield;
    }
    parts.push(`  ${JSON.stringify(key)}: [\n${items.join(',\n')}\n  ]`);
  }
  return `{\n${parts.join(',\n')}\n}`;
}

/** Writes JSON so a reader never sees half a file: temp file in the same directory, then rename. */
export async function writeJsonAtomic(filePath: string, data: unknown): Promise<void> {
  await mkdir(path.dirname(filePath), { recursive: true, mode: 0o700 });
  const temp = `${filePath}.${process.pid}.tmp`;
  const json = await runInSlices(jsonSteps(data));
  await writeFile(temp, `${json}\n`, { mode: 0o600 });
  await rename(temp, filePath);
}

/**
 * One state file written by several sources (reloads, control-plane changes arriving back to back).
 * Writes never overlap (they share one temp file) and the latest value wins: values offered while a
 * write runs collapse into one more write.
 */
export class LatestJsonFile {
  private writing: Promise<void> | undefined;
  private pending: { data: unknown; waiters: Array<(error: unknown) => void> } | undefined;

  constructor(readonly filePath: string) {}

  /** Resolves once `data` (or a newer value) is on disk; rejects when that write failed. */
  write(data: unknown): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter = (error: unknown): void => (error === undefined ? resolve() : reject(error));
      if (this.pending === undefined) this.pending = { data, waiters: [waiter] };
      else {
        this.pending.data = data;
        this.pending.waiters.push(waiter);
      }
      this.writing ??= this.drain();
    });
  }

  /** Resolves when no write is running or waiting (never rejects). */
  settled(): Promise<void> {
    return this.writing ?? Promise.resolve();
  }

  private async drain(): Promise<void> {
    while (this.pending !== undefined) {
      const { data, waiters } = this.pending;
      this.pending = undefined;
      let failure: unknown;
      try {
        await writeJsonAtomic(this.filePath, data);
      } catch (error) {
        failure = error ?? new Error('write failed');
      }
      for (const waiter of waiters) waiter(failure);
    }
    this.writing = undefined;
  }
}
