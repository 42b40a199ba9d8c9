import type { ExpositionWriter } from './exposition-writer';

/** Spec 4.2: milliseconds for http_request_duration_ms. */
export const DURATION_BUCKETS_MS: readonly number[] = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];
/** Per-bucket slots of a series: one per bound and +Inf. */
export const BUCKET_COUNT = DURATION_BUCKETS_MS.length + 1;
/** Values of one series in the arena: count, sum (ms), then the per-bucket (not cumulative) counts. */
const SLOT = 2 + BUCKET_COUNT;
const SUM = 1;
const FIRST_BUCKET = 2;
/** Series room at the start; the arenas grow by half when full (doubling left up to half unused at 10,000 routes). */
const INITIAL_SERIES = 64;
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

  /** A sample line of this series: `<open><its labels>} <value>\n` (ExpositionWriter.line). */
  writeLine(out: ExpositionWriter, open: Uint8Array, slot: number, value: number): void {
    out.line(open, this.labelBytes, this.labelStart(slot), this.labelEnds[slot] as number, value);
  }

  /** Bytes of a series' label set. */
  labelLength(slot: number): number {
    return (this.labelEnds[slot] as number) - this.labelStart(slot);
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
