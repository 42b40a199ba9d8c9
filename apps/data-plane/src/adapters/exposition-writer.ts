/** Bytes per chunk handed to the response: big enough that a 25 MB scrape is ~400 writes, small enough to stream. */
const CHUNK_BYTES = 64 * 1024;
/** Sent chunks kept for reuse: a scrape streams, so a few are in flight at a time. */
const SPARE_CHUNKS = 16;
/** Room for the longest number `number()` writes by hand (a safe integer has at most 16 digits). */
export const NUMBER_ROOM = 32;
const NEWLINE = 10;
const CLOSE = 125; // }
const SPACE = 32;

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
  private completed: Buffer[] = [];
  private readonly spare: Buffer[] = [];
  private readonly digits = new Uint8Array(NUMBER_ROOM);

  /** True when at least one full chunk is waiting. */
  get hasCompleted(): boolean {
    return this.completed.length > 0;
  }

  /** The full chunks written so far (each returned once). */
  takeCompleted(): Buffer[] {
    const taken = this.completed;
    this.completed = [];
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

  /** Where the next byte goes in the current chunk (a line's label set, for `repeatLine`). */
  get position(): number {
    return this.length;
  }

  /** Makes sure the next `bytes` bytes go to the current chunk (starting a new one if needed). */
  reserve(bytes: number): void {
    this.room(bytes);
  }

  /**
   * A whole sample line, `<open><labels>} <value>\n`, with the label set copied from `source`
   * (bytes `start` to `end`, a series' in its family's buffer). One call and one room check per
   * line instead of six: the first scrape after a start runs in V8's interpreter, where each call
   * costs (issue 19, docs/data-plane.md "/metrics cardinality").
   */
  line(open: Uint8Array, source: Uint8Array, start: number, end: number, value: number): void {
    this.room(open.length + (end - start) + 3 + NUMBER_ROOM);
    const chunk = this.chunk;
    chunk.set(open, this.length);
    let at = this.length + open.length;
    for (let i = start; i < end; i += 1) chunk[at++] = source[i] as number;
    this.length = at;
    this.closeLine(value);
  }

  /**
   * A sample line whose label set is already in the current chunk at `labelsAt` to `labelsEnd`:
   * `<open>`, those bytes once more (one native copy), `} <value>\n`. Only inside a `reserve` that
   * covers the line (a histogram series reserves its 13 lines at once).
   */
  repeatLine(open: Uint8Array, labelsAt: number, labelsEnd: number, value: number): void {
    const chunk = this.chunk;
    chunk.set(open, this.length);
    const at = this.length + open.length;
    chunk.copyWithin(at, labelsAt, labelsEnd);
    this.length = at + (labelsEnd - labelsAt);
    this.closeLine(value);
  }

  /** `} <value>\n` into room already made; a single digit (most bucket counts) without a call. */
  private closeLine(value: number): void {
    const chunk = this.chunk;
    let at = this.length;
    chunk[at++] = CLOSE;
    chunk[at++] = SPACE;
    if (value >= 0 && value < 10 && Math.floor(value) === value) {
      chunk[at++] = 48 + value;
      chunk[at++] = NEWLINE;
      this.length = at;
      return;
    }
    this.length = at;
    this.number(value);
    this.chunk[this.length++] = NEWLINE;
  }

  /** One byte (an ASCII character code). */
  private byte(code: number): void {
    this.room(1);
    this.chunk[this.length++] = code;
  }

  /** A sample value in the text format's float syntax (integers without a fraction, +Inf, -Inf, NaN). */
  number(value: number): void {
    if (value >= 0 && value <= Number.MAX_SAFE_INTEGER && Math.floor(value) === value) this.wholeNumber(value);
    else if (value === Infinity) this.ascii('+Inf');
    else if (value === -Infinity) this.ascii('-Inf');
    else this.ascii(String(value));
  }

  /** The end of a line. */
  newline(): void {
    this.byte(NEWLINE);
  }

  /** A non-negative safe integer (counts), digits written by hand: no string per number. */
  private wholeNumber(value: number): void {
    this.room(NUMBER_ROOM);
    const chunk = this.chunk;
    if (value < 10) {
      chunk[this.length++] = 48 + value;
      return;
    }
    const digits = this.digits;
    let count = 0;
    let rest = value;
    while (rest > 0) {
      const next = Math.floor(rest / 10);
      digits[count++] = 48 + (rest - next * 10);
      rest = next;
    }
    let at = this.length;
    while (count > 0) chunk[at++] = digits[--count] as number;
    this.length = at;
  }

  /** Makes room for `bytes` more, starting a new chunk (larger for one huge piece) when this one is full. */
  private room(bytes: number): void {
    if (this.length + bytes <= this.chunk.length) return;
    if (this.length > 0) this.completed.push(this.chunk.subarray(0, this.length));
    this.chunk = bytes <= CHUNK_BYTES ? (this.spare.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES)) : Buffer.allocUnsafe(bytes);
    this.length = 0;
  }
}
