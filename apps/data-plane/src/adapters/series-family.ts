import { NUMBER_ROOM, writeNumber } from './exposition-writer';

/** Spec 4.2: milliseconds for http_request_duration_ms. */
export const DURATION_BUCKETS_MS: readonly number[] = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];
/** Per-bucket slots of a series: one per bound and +Inf. */
export const BUCKET_COUNT = DURATION_BUCKETS_MS.length + 1;
/** Values of one series in the arena: count, sum (ms), then the per-bucket (not cumulative) counts. */
export const SLOT = 2 + BUCKET_COUNT;
const SUM = 1;
const FIRST_BUCKET = 2;
/** Series room at the start; the arenas grow by half when full (doubling left up to half unused at 10,000 routes). */
const INITIAL_SERIES = 64;
/** Lines of a histogram series: its buckets, `_sum` and `_count`. */
export const HISTOGRAM_LINES = BUCKET_COUNT + 2;
/** Bytes of a line besides its opening and labels: `} `, the value (at most NUMBER_ROOM), `\n`. */
const LINE_TAIL = 3 + NUMBER_ROOM;
const CLOSE = 125; // }
const SPACE = 32;
const NEWLINE = 10;
/** Label bytes a series is guessed to need at the start. */
const INITIAL_LABEL_BYTES = INITIAL_SERIES * 48;

/** The bucket index of a duration: the first bound it does not exceed, or +Inf. */
export function bucketOf(durationMs: number): number {
  let bucket = 0;
  while (bucket < DURATION_BUCKETS_MS.length && durationMs > (DURATION_BUCKETS_MS[bucket] as number)) bucket += 1;
  return bucket;
}

/**
 * The series of one label scheme (path pattern or route id, with method and status), each a
 * count, a sum and per-bucket counts, kept in one Float64Array, and its label set as UTF-8 bytes
 * in one buffer, written once when the series is created. A series costs ~104 bytes of values
 * plus its label bytes and an index entry, and no object of its own: at 10,000 routes there are
 * tens of thousands of series, and every object would be one more for the heap and the GC.
 */
export class SeriesFamily {
  /** Series in creation order; a scrape writes slots 0 to size - 1. */
  size = 0;
  private values = new Float64Array(INITIAL_SERIES * SLOT);
  private labelBytes = Buffer.allocUnsafe(INITIAL_LABEL_BYTES);
  /** Series i's label bytes are labelBytes[labelEnds[i - 1] (0 for the first) .. labelEnds[i]]. */
  private labelEnds = new Int32Array(INITIAL_SERIES);
  private readonly slots = new Map<string, number>();

  /**
   * A family of series given as a scrape reads them (label bytes, where each label set ends, the
   * values), for the render's warm-up (exposition-warm-up.ts): it makes the family without `add`
   * or `record`, so no function the request path runs sees its synthetic series. The arrays are of
   * the kinds the constructor makes (a Buffer, an Int32Array, a Float64Array), so the render's
   * compiled code sees one shape of family, this one's and the served ones' alike.
   */
  static prepared(labelBytes: Buffer<ArrayBuffer>, labelEnds: Int32Array<ArrayBuffer>, values: Float64Array<ArrayBuffer>): SeriesFamily {
    const family = new SeriesFamily();
    family.labelBytes = labelBytes;
    family.labelEnds = labelEnds;
    family.values = values;
    family.size = labelEnds.length;
    return family;
  }

  /** The slot of the series with this label set (the text between the braces), created on first use. */
  slotFor(labels: string): number {
    const known = this.slots.get(labels);
    if (known !== undefined) return known;
    const slot = this.add(labels);
    this.slots.set(labels, slot);
    return slot;
  }

  /** A new series, for a caller that knows this label set has none yet (no index entry: less memory). */
  add(labels: string): number {
    const slot = this.size;
    if (slot === this.labelEnds.length) this.growSeries();
    const start = this.labelStart(slot);
    const byteLength = Buffer.byteLength(labels);
    if (start + byteLength > this.labelBytes.length) this.growLabels(start + byteLength);
    this.labelBytes.write(labels, start, 'utf8');
    this.labelEnds[slot] = start + byteLength;
    this.size = slot + 1;
    return slot;
  }

  record(slot: number, durationMs: number, bucket: number): void {
    const values = this.values;
    const base = slot * SLOT;
    values[base] = (values[base] as number) + 1;
    values[base + SUM] = (values[base + SUM] as number) + durationMs;
    values[base + FIRST_BUCKET + bucket] = (values[base + FIRST_BUCKET + bucket] as number) + 1;
  }

  count(slot: number): number {
    return this.values[slot * SLOT] as number;
  }

  sumMs(slot: number): number {
    return this.values[slot * SLOT + SUM] as number;
  }

  /** The per-bucket (not cumulative) count of `bucket` (BUCKET_COUNT - 1 is +Inf). */
  bucket(slot: number, bucket: number): number {
    return this.values[slot * SLOT + FIRST_BUCKET + bucket] as number;
  }

  /** The label set of a series as text (tests and diagnostics; a scrape copies the bytes instead). */
  labels(slot: number): string {
    return this.labelBytes.toString('utf8', this.labelStart(slot), this.labelEnds[slot] as number);
  }

  /** Bytes a histogram series may need when its longest line opening is `longestOpen` bytes. */
  histogramBytes(slot: number, longestOpen: number): number {
    return HISTOGRAM_LINES * (longestOpen + this.labelLength(slot) + LINE_TAIL);
  }

  /** Bytes the counter line of a series may need after `open`. */
  counterBytes(slot: number, open: Uint8Array): number {
    return open.length + this.labelLength(slot) + LINE_TAIL;
  }

  /**
   * The 13 lines of a histogram series (`opens`: the 11 `_bucket{le=...,` openings, `_sum{`,
   * `_count{`, and their lengths) written at `at` into room already made; returns where they end. Buckets are
   * cumulative; the sum is multiplied by `scale` (1 for ms, 1 / 1000 for seconds).
   * One flat loop, no call per line but two native copies and the rare number of more than a digit:
   * the first scrape after a start runs it in V8's interpreter, and the optimizing compiler's work
   * on its background threads grows with every function it inlines (issue 19, docs/data-plane.md
   * "/metrics cardinality").
   */
  histogramLines(chunk: Uint8Array, at: number, slot: number, opens: readonly Uint8Array[], openLengths: readonly number[], scale: number): number {
    const start = this.labelStart(slot);
    const labelLength = (this.labelEnds[slot] as number) - start;
    const labels = new Uint8Array(this.labelBytes.buffer, this.labelBytes.byteOffset + start, labelLength);
    const values = this.values;
    const base = slot * SLOT;
    let end = at;
    let cumulative = 0;
    for (let line = 0; line < HISTOGRAM_LINES; line += 1) {
      // Lengths as plain numbers: in the interpreter a typed array's `length` is a property load.
      chunk.set(opens[line] as Uint8Array, end);
      end += openLengths[line] as number;
      chunk.set(labels, end);
      end += labelLength;
      chunk[end] = CLOSE;
      chunk[end + 1] = SPACE;
      end += 2;
      let value: number;
      if (line < BUCKET_COUNT) {
        cumulative += values[base + FIRST_BUCKET + line] as number;
        value = cumulative;
      } else if (line === BUCKET_COUNT) {
        value = (values[base + SUM] as number) * scale;
      } else {
        value = values[base] as number;
      }
      end = writeNumber(chunk, end, value);
      chunk[end] = NEWLINE;
      end += 1;
    }
    return end;
  }

  /** The counter line of a series, `<open><labels>} <count>\n`, at `at` into room already made; returns its end. */
  counterLine(chunk: Uint8Array, at: number, slot: number, open: Uint8Array): number {
    const labels = this.labelView(slot);
    let end = at;
    chunk.set(open, end);
    end += open.length;
    chunk.set(labels, end);
    end += labels.length;
    chunk[end] = CLOSE;
    chunk[end + 1] = SPACE;
    end = writeNumber(chunk, end + 2, this.values[slot * SLOT] as number);
    chunk[end] = NEWLINE;
    return end + 1;
  }

  /** Bytes of a series' label set. */
  private labelLength(slot: number): number {
    return (this.labelEnds[slot] as number) - this.labelStart(slot);
  }

  /** A series' label bytes without a copy (one small view per series and scrape, none kept). */
  private labelView(slot: number): Uint8Array {
    const start = this.labelStart(slot);
    return new Uint8Array(this.labelBytes.buffer, this.labelBytes.byteOffset + start, (this.labelEnds[slot] as number) - start);
  }

  private labelStart(slot: number): number {
    return slot === 0 ? 0 : (this.labelEnds[slot - 1] as number);
  }

  private growSeries(): void {
    const capacity = Math.ceil(this.labelEnds.length * 1.5);
    const values = new Float64Array(capacity * SLOT);
    values.set(this.values);
    this.values = values;
    const ends = new Int32Array(capacity);
    ends.set(this.labelEnds);
    this.labelEnds = ends;
  }

  private growLabels(needed: number): void {
    const bytes = Buffer.allocUnsafe(Math.max(needed, Math.ceil(this.labelBytes.length * 1.5)));
    this.labelBytes.copy(bytes);
    this.labelBytes = bytes;
  }
}
