import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runInSlices } from './time-slices';

/** Arrays longer than this are serialized an element at a time, yielding between slices. */
const LONG_ARRAY = 64;
/** Characters per written chunk: well under V8's large-object size (a string of 32 K one-byte characters is 32 KB). */
const CHUNK_CHARS = 32 * 1024;

/**
 * JSON for a state file without holding the event loop: the snapshot of a 10,000-route table is
 * megabytes, and one JSON.stringify of it would stall every request for tens of milliseconds.
 * Top-level arrays are written one element a line; everything else as JSON.stringify would. The
 * text comes as chunks, written one after the other: joined, it would be one string of megabytes,
 * allocated where V8 keeps large objects, and held in the process's memory until a full collection.
 */
function* jsonSteps(data: unknown): Generator<void, string[], void> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [JSON.stringify(data, null, 2), '\n'];
  const chunks = new TextChunks();
  chunks.push('{\n');
  let first = true;
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (value === undefined) continue;
    chunks.push(`${first ? '' : ',\n'}  ${JSON.stringify(key)}: `);
    first = false;
    if (!Array.isArray(value) || value.length <= LONG_ARRAY) {
      chunks.push(JSON.stringify(value, null, 2).replace(/\n/g, '\n  '));
      continue;
    }
    chunks.push('[\n');
    for (let i = 0; i < value.length; i += 1) {
      chunks.push(`${i === 0 ? '' : ',\n'}    ${JSON.stringify(value[i]) ?? 'null'}`);
      yield;
    }
    chunks.push('\n  ]');
  }
  chunks.push('\n}\n');
  return chunks.done();
}

/** Text pieces gathered into chunks of about CHUNK_CHARS: one write each, none of them a large object. */
class TextChunks {
  private readonly chunks: string[] = [];
  private pending: string[] = [];
  private size = 0;

  push(text: string): void {
    this.pending.push(text);
    this.size += text.length;
    if (this.size >= CHUNK_CHARS) this.flush();
  }

  done(): string[] {
    this.flush();
    return this.chunks;
  }

  private flush(): void {
    if (this.pending.length > 0) this.chunks.push(this.pending.join(''));
    this.pending = [];
    this.size = 0;
  }
}

/** Writes JSON so a reader never sees half a file: temp file in the same directory, then rename. */
export async function writeJsonAtomic(filePath: string, data: unknown): Promise<void> {
  await mkdir(path.dirname(filePath), { recursive: true, mode: 0o700 });
  const temp = `${filePath}.${process.pid}.tmp`;
  const chunks = await runInSlices(jsonSteps(data));
  await writeFile(temp, chunks, { mode: 0o600 });
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
