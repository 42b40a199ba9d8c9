import { mkdir, open, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** Arrays longer than this are serialized an element at a time. */
const LONG_ARRAY = 64;
/**
 * Text gathered before it is written: each write, and the serializing before it, is a short task,
 * and no chunk is a string V8 allocates among its large objects (held until a full collection).
 */
const CHUNK_CHARS = 32 * 1024;

/** Between two elements of a long top-level array in a state file (one element a line, indented). */
export const ELEMENT_SEPARATOR = ',\n    ';

/**
 * A slice of an array's joined bytes written at once (see SerializedJsonArray.joined). The bytes
 * are ready, so a slice costs the event loop one write call whatever its size (the copy into the
 * file runs in libuv's pool): 1 MiB makes a 10,000-route snapshot five writes instead of 80.
 */
const JOINED_SLICE = 1024 * 1024;

/**
 * An array whose elements are JSON already (UTF-8, one element each), written as they are. The
 * reload worker hands over every route's JSON text: serializing 10,000 routes again on the event
 * loop was about a quarter of a full reload's main-thread CPU, and megabytes of young strings.
 * `joined`, when given, is every element in order with ELEMENT_SEPARATOR between them (the reload
 * worker lays its buffer out so): it is written in large slices of its own bytes, with no per-element
 * step and no copy (gathering 10,000 elements into chunks was 5-7 ms of a reload's main thread).
 */
export class SerializedJsonArray {
  constructor(
    readonly length: number,
    readonly element: (index: number) => Uint8Array,
    readonly joined?: Uint8Array,
  ) {}
}

/**
 * JSON for a state file in pieces: the snapshot of a 10,000-route table is megabytes, and one
 * JSON.stringify of it (or joining the pieces and encoding the whole text at once) would stall
 * every request for tens of milliseconds. Top-level arrays are written one element a line;
 * everything else as JSON.stringify would.
 */
function* jsonPieces(data: unknown): Generator<string | Uint8Array, void, void> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    yield JSON.stringify(data, null, 2);
    return;
  }
  let first = true;
  yield '{\n';
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (value === undefined) continue;
    const separator = first ? '' : ',\n';
    first = false;
    if (value instanceof SerializedJsonArray) {
      yield `${separator}  ${JSON.stringify(key)}: [`;
      const joined = value.length === 0 ? undefined : value.joined;
      if (joined !== undefined) {
        yield '\n    ';
        for (let at = 0; at < joined.length; at += JOINED_SLICE) yield joined.subarray(at, Math.min(at + JOINED_SLICE, joined.length));
      } else {
        for (let i = 0; i < value.length; i += 1) {
          yield i === 0 ? '\n    ' : ELEMENT_SEPARATOR;
          yield value.element(i);
        }
      }
      yield value.length === 0 ? ']' : '\n  ]';
      continue;
    }
    if (!Array.isArray(value) || value.length <= LONG_ARRAY) {
      yield `${separator}  ${JSON.stringify(key)}: ${JSON.stringify(value, null, 2).replace(/\n/g, '\n  ')}`;
      continue;
    }
    yield `${separator}  ${JSON.stringify(key)}: [\n`;
    for (let i = 0; i < value.length; i += 1) yield `${i === 0 ? '' : ',\n'}    ${JSON.stringify(value[i]) ?? 'null'}`;
    yield '\n  ]';
  }
  yield '\n}';
}

/** A write may take only part of the bytes: the rest follow. */
async function writeAll(file: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.length; ) offset += (await file.write(bytes, offset)).bytesWritten;
}

/**
 * Writes JSON so a reader never sees half a file: temp file in the same directory, then rename.
 * The text is serialized and written a chunk at a time, each chunk its own short task.
 */
export async function writeJsonAtomic(filePath: string, data: unknown): Promise<void> {
  await mkdir(path.dirname(filePath), { recursive: true, mode: 0o700 });
  const temp = `${filePath}.${process.pid}.tmp`;
  const file = await open(temp, 'w', 0o600);
  try {
    // Text is gathered as a string and encoded once a chunk; serialized elements join as bytes.
    let parts: Uint8Array[] = [];
    let text = '';
    let size = 0;
    const chunk = (): Buffer => {
      if (text !== '') parts.push(Buffer.from(text));
      const bytes = Buffer.concat(parts);
      parts = [];
      text = '';
      size = 0;
      return bytes;
    };
    for (const piece of jsonPieces(data)) {
      if (typeof piece === 'string') text += piece;
      else if (piece.length >= CHUNK_CHARS) {
        // A large slice of bytes already encoded: written as it is, after what was gathered before it.
        if (size > 0) await writeAll(file, chunk());
        await writeAll(file, piece);
        continue;
      } else {
        if (text !== '') parts.push(Buffer.from(text));
        text = '';
        parts.push(piece);
      }
      size += piece.length;
      if (size < CHUNK_CHARS) continue;
      await writeAll(file, chunk());
    }
    text += '\n';
    await writeAll(file, chunk());
  } finally {
    await file.close();
  }
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
