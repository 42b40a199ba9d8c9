/** Bytes per chunk handed to the response: big enough that a 25 MB scrape is ~400 writes, small enough to stream. */
const CHUNK_BYTES = 64 * 1024;
/** Sent chunks kept for reuse: a scrape streams, so a few are in flight at a time. */
const SPARE_CHUNKS = 16;
/** Room for the longest number `number()` writes by hand (a safe integer has at most 16 digits). */
export const NUMBER_ROOM = 32;
const NEWLINE = 10;
const DIGITS = new Uint8Array(NUMBER_ROOM);

/**
 * An empty list made for buffers from the start. An empty `[]` is a list of small integers to V8:
 * its first buffer changes its kind, which deoptimizes the compiled code that pushed it in the
 * middle of the first scrape after a start, and everything that had assumed the old kind after it
 * (issue 19, docs/data-plane.md "/metrics cardinality").
 */
function chunkList(): Buffer[] {
  const list = [EMPTY_CHUNK];
  list.pop();
  return list;
}
const EMPTY_CHUNK = Buffer.alloc(0);

/**
 * Builds a Prometheus text exposition straight into byte chunks: label sets are copied as bytes
 * prepared once per series, numbers are written digit by digit, a sample line is one call, and no
 * per-line string is made.
 * Full chunks wait in `completed` until the caller takes them (and writes them to the response),
 * so a scrape of any size holds only the chunks the socket has not sent yet.
 */
export class ExpositionWriter {
  private chunk: Buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private length = 0;
  private completed: Buffer[] = chunkList();
  private readonly spare: Buffer[] = chunkList();

  /** True when at least one full chunk is waiting. */
  get hasCompleted(): boolean {
    return this.completed.length > 0;
  }

  /** The full chunks written so far (each returned once). */
  takeCompleted(): Buffer[] {
    const taken = this.completed;
    this.completed = chunkList();
    return taken;
  }

  /** Every chunk not yet taken, the partly filled one included. */
  finish(): Buffer[] {
    if (this.length > 0) this.completed.push(this.chunk.subarray(0, this.length));
    this.chunk = Buffer.allocUnsafe(0);
    this.length = 0;
    return this.takeCompleted();
  }

  /**
   * Takes back a chunk the socket has sent: the next chunk is written into its memory instead of a
   * new 64 KiB allocation, so a 25 MB scrape leaves ~1 MB of garbage instead of 25 MB of external
   * memory for the GC to find (RSS grew by tens of MB over repeated scrapes before).
   */
  recycle(sent: Uint8Array): void {
    const memory = sent.buffer;
    if (memory.byteLength !== CHUNK_BYTES || sent.byteOffset !== 0 || this.spare.length >= SPARE_CHUNKS) return;
    this.spare.push(Buffer.from(memory, 0, CHUNK_BYTES));
  }

  /** Any text (HELP lines, prom-client's part), UTF-8 encoded. */
  text(value: string): void {
    this.room(Buffer.byteLength(value));
    this.length += this.chunk.write(value, this.length, 'utf8');
  }

  /** Text known to be ASCII (metric names, formatted numbers): copied char by char, no encoder call. */
  ascii(value: string): void {
    this.room(value.length);
    const chunk = this.chunk;
    let at = this.length;
    for (let i = 0; i < value.length; i += 1) chunk[at++] = value.charCodeAt(i);
    this.length = at;
  }

  /** Bytes prepared once (a series' line prefix), copied as they are. */
  bytes(value: Uint8Array): void {
    this.room(value.length);
    this.chunk.set(value, this.length);
    this.length += value.length;
  }

  /** Where the next byte goes in the current chunk (what `claim` returned). */
  get position(): number {
    return this.length;
  }

  /**
   * The current chunk, with room for `bytes` more from `position` on (a new chunk when this one is
   * full): a series' lines are written straight into it (series-family.ts), then `advance`d over.
   * Two calls per series instead of one or more per line: the first scrape after a start runs in
   * V8's interpreter, where each call costs (issue 19, docs/data-plane.md "/metrics cardinality").
   */
  claim(bytes: number): Buffer {
    this.room(bytes);
    return this.chunk;
  }

  /** Moves the end of the written bytes to `end` (within what `claim` made room for). */
  advance(end: number): void {
    this.length = end;
  }

  /** One byte (an ASCII character code). */
  private byte(code: number): void {
    this.room(1);
    this.chunk[this.length++] = code;
  }

  /** A sample value in the text format's float syntax (integers without a fraction, +Inf, -Inf, NaN). */
  number(value: number): void {
    this.room(NUMBER_ROOM);
    this.length = writeNumber(this.chunk, this.length, value);
  }

  /** The end of a line. */
  newline(): void {
    this.byte(NEWLINE);
  }

  /** Makes room for `bytes` more, starting a new chunk (larger for one huge piece) when this one is full. */
  private room(bytes: number): void {
    if (this.length + bytes <= this.chunk.length) return;
    if (this.length > 0) this.completed.push(this.chunk.subarray(0, this.length));
    this.chunk = bytes <= CHUNK_BYTES ? (this.spare.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES)) : Buffer.allocUnsafe(bytes);
    this.length = 0;
  }
}

/**
 * Writes `value` at `at` in the text format's float syntax (integers without a fraction, +Inf,
 * -Inf, NaN; anything else as JavaScript prints it) and returns where it ends; `NUMBER_ROOM` bytes
 * must be free. Whole numbers (counts) are written digit by digit: no string per number.
 */
export function writeNumber(chunk: Uint8Array, at: number, value: number): number {
  let end = at;
  if (value >= 0 && value <= Number.MAX_SAFE_INTEGER && Math.floor(value) === value) {
    if (value < 10) {
      chunk[end] = 48 + value;
      return end + 1;
    }
    let count = 0;
    let rest = value;
    while (rest > 0) {
      const next = Math.floor(rest / 10);
      DIGITS[count++] = 48 + (rest - next * 10);
      rest = next;
    }
    while (count > 0) chunk[end++] = DIGITS[--count] as number;
    return end;
  }
  const text = value === Infinity ? '+Inf' : value === -Infinity ? '-Inf' : String(value);
  for (let i = 0; i < text.length; i += 1) chunk[end++] = text.charCodeAt(i);
  return end;
}

/**
 * Every branch of `writeNumber` taken once at load (one of each kind of value, past V8's
 * invocation count for collecting feedback): the optimizing compiler drops branches it has seen no
 * feedback for, so the first fractional sum of the first scrape after a start would deoptimize the
 * loops `writeNumber` is inlined into and have them compiled again (issue 19, docs/data-plane.md
 * "/metrics cardinality"). A few microseconds at start.
 */
function collectNumberFeedback(): void {
  const scratch = Buffer.alloc(NUMBER_ROOM);
  const kinds = [0, 7, 12, 123_456, 0.5, 1 / 3, Infinity, -Infinity, NaN, -1];
  for (let round = 0; round < 4; round += 1) for (const value of kinds) writeNumber(scratch, 0, value);
}
collectNumberFeedback();
