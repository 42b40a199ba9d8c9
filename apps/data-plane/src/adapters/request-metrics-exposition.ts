import { NUMBER_ROOM, type ExpositionWriter } from './exposition-writer';
import type { RequestSeriesStore } from './request-series';
import { BUCKET_COUNT, DURATION_BUCKETS_MS, type SeriesFamily } from './series-family';

/**
 * The four request metrics of spec 4.2 (decision 18: path patterns on http_*, route ids on
 * gateway_*) in the Prometheus text format, in prom-client's layout (families separated by a
 * blank line, `le` first). At 10,000 routes with traffic these are ~260,000 lines (two histograms
 * of 13 lines per route, method and status), so they are written as bytes: label sets prepared
 * when a series is created, line prefixes once per scrape, numbers digit by digit, and a chunk
 * handed out (yielded) whenever one is full, so the response streams while the rest is written
 * (issue 19, docs/data-plane.md "/metrics cardinality").
 */
export function* requestMetricsExposition(store: RequestSeriesStore, out: ExpositionWriter): Generator<Buffer, void, undefined> {
  yield* counter(out, 'http_requests_total', 'HTTP requests handled, by method, route pattern and status', store.byPattern);
  out.newline();
  yield* histogram(out, 'http_request_duration_ms', 'HTTP request duration in milliseconds, by method, route pattern and status', store.byPattern, 1);
  out.newline();
  yield* counter(out, 'gateway_requests_total', 'Requests through the gateway, by route id, method and status', store.byId);
  out.newline();
  yield* histogram(out, 'gateway_request_duration_seconds', 'Request duration through the gateway in seconds, by route id, method and status', store.byId, 1 / 1000);
}

function header(out: ExpositionWriter, name: string, help: string, type: 'counter' | 'histogram'): void {
  out.ascii(`# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`);
}

function* counter(out: ExpositionWriter, name: string, help: string, family: SeriesFamily): Generator<Buffer, void, undefined> {
  header(out, name, help, 'counter');
  const open = Buffer.from(`${name}{`);
  // Series created while this family streams wait for the next scrape.
  const size = family.size;
  for (let slot = 0; slot < size; ) {
    slot = counterLines(out, family, open, slot, size);
    yield* out.takeCompleted();
  }
}

/**
 * Counter lines from `slot` on, until a chunk is full or `size` is reached; returns the next slot.
 * The loops are plain functions, the generators only hand out chunks: V8 optimizes a plain loop
 * sooner and compiles it in a fraction of a generator's time, which is most of what the first
 * scrape after a start costs (issue 19, docs/data-plane.md "/metrics cardinality").
 */
function counterLines(out: ExpositionWriter, family: SeriesFamily, open: Buffer, slot: number, size: number): number {
  let next = slot;
  while (next < size && !out.hasCompleted) {
    family.writeLine(out, open, next, family.count(next));
    next += 1;
  }
  return next;
}

/** A histogram's line openings (`<name>_bucket{le="5",` ... `<name>_count{`), built once per scrape. */
interface HistogramOpens {
  readonly buckets: readonly Buffer[];
  readonly sum: Buffer;
  readonly count: Buffer;
  /** The longest of them: with the labels, what one line may need. */
  readonly longest: number;
  /** Multiplies the sum (1 for ms, 1 / 1000 for seconds). */
  readonly scale: number;
}

function* histogram(out: ExpositionWriter, name: string, help: string, family: SeriesFamily, scale: number): Generator<Buffer, void, undefined> {
  header(out, name, help, 'histogram');
  const buckets = [...DURATION_BUCKETS_MS.map((bound) => `${bound * scale}`), '+Inf'].map((le) => Buffer.from(`${name}_bucket{le="${le}",`));
  const sum = Buffer.from(`${name}_sum{`);
  const count = Buffer.from(`${name}_count{`);
  const opens: HistogramOpens = { buckets, sum, count, longest: Math.max(sum.length, count.length, ...buckets.map((b) => b.length)), scale };
  const size = family.size;
  for (let slot = 0; slot < size; ) {
    slot = histogramSeries(out, family, opens, slot, size);
    yield* out.takeCompleted();
  }
}

/** Histogram series from `slot` on, until a chunk is full or `size` is reached; returns the next slot (see counterLines). */
function histogramSeries(out: ExpositionWriter, family: SeriesFamily, opens: HistogramOpens, slot: number, size: number): number {
  const lines = BUCKET_COUNT + 2;
  const buckets = opens.buckets;
  const first = buckets[0] as Buffer;
  let next = slot;
  while (next < size && !out.hasCompleted) {
    // The whole series goes into one chunk: its label set is written once and copied within the
    // chunk to its other 12 lines. One series is written within one turn of the event loop, so its
    // buckets, sum and count agree.
    const labelLength = family.labelLength(next);
    out.reserve(lines * (opens.longest + labelLength + 3 + NUMBER_ROOM));
    const labelsAt = out.position + first.length;
    const labelsEnd = labelsAt + labelLength;
    let cumulative = family.bucket(next, 0);
    family.writeLine(out, first, next, cumulative);
    for (let b = 1; b < BUCKET_COUNT; b += 1) {
      cumulative += family.bucket(next, b);
      out.repeatLine(buckets[b] as Buffer, labelsAt, labelsEnd, cumulative);
    }
    out.repeatLine(opens.sum, labelsAt, labelsEnd, family.sumMs(next) * opens.scale);
    out.repeatLine(opens.count, labelsAt, labelsEnd, family.count(next));
    next += 1;
  }
  return next;
}
