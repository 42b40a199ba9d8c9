import type { ExpositionWriter } from './exposition-writer';
import { DURATION_BUCKETS_MS, type SeriesFamily } from './series-family';

/**
 * The four request metrics of spec 4.2 (decision 18: path patterns on http_*, route ids on
 * gateway_*) in the Prometheus text format, in prom-client's layout (families separated by a
 * blank line, `le` first). At 10,000 routes with traffic these are ~260,000 lines (two histograms
 * of 13 lines per route, method and status), so they are written as bytes: label sets prepared
 * when a series is created, line prefixes once per scrape, numbers digit by digit, and a chunk
 * handed out (yielded) whenever one is full, so the response streams while the rest is written
 * (issue 19, docs/data-plane.md "/metrics cardinality").
 */
export function* requestMetricsExposition(byPattern: SeriesFamily, byId: SeriesFamily, out: ExpositionWriter): Generator<Buffer, void, undefined> {
  yield* counter(out, 'http_requests_total', 'HTTP requests handled, by method, route pattern and status', byPattern);
  out.newline();
  yield* histogram(out, 'http_request_duration_ms', 'HTTP request duration in milliseconds, by method, route pattern and status', byPattern, 1);
  out.newline();
  yield* counter(out, 'gateway_requests_total', 'Requests through the gateway, by route id, method and status', byId);
  out.newline();
  yield* histogram(out, 'gateway_request_duration_seconds', 'Request duration through the gateway in seconds, by route id, method and status', byId, 1 / 1000);
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
 * sooner and compiles it in a fraction of a generator's time, and compiling is most of what the
 * first render after a start costs (issue 19, docs/data-plane.md "/metrics cardinality").
 */
function counterLines(out: ExpositionWriter, family: SeriesFamily, open: Buffer, slot: number, size: number): number {
  let next = slot;
  while (next < size && !out.hasCompleted) {
    const chunk = out.claim(family.counterBytes(next, open));
    out.advance(family.counterLine(chunk, out.position, next, open));
    next += 1;
  }
  return next;
}

function* histogram(out: ExpositionWriter, name: string, help: string, family: SeriesFamily, scale: number): Generator<Buffer, void, undefined> {
  header(out, name, help, 'histogram');
  const buckets = [...DURATION_BUCKETS_MS.map((bound) => `${bound * scale}`), '+Inf'].map((le) => Buffer.from(`${name}_bucket{le="${le}",`));
  // The 13 line openings (`<name>_bucket{le="5",` ... `<name>_sum{`, `<name>_count{`), built once per scrape.
  const opens = [...buckets, Buffer.from(`${name}_sum{`), Buffer.from(`${name}_count{`)];
  const openLengths = opens.map((open) => open.length);
  const longest = Math.max(...openLengths);
  const size = family.size;
  for (let slot = 0; slot < size; ) {
    slot = histogramSeries(out, family, opens, openLengths, longest, scale, slot, size);
    yield* out.takeCompleted();
  }
}

/**
 * Histogram series from `slot` on, until a chunk is full or `size` is reached; returns the next slot
 * (see counterLines). A whole series goes into one chunk and is written within one turn of the
 * event loop, so its buckets, sum and count agree. Plain arguments rather than an object of them:
 * `scale` is 1 in one family and 0.001 in the other, and an object whose field changes from an
 * integer to a double deoptimizes the compiled loop in the middle of the first scrape.
 */
function histogramSeries(out: ExpositionWriter, family: SeriesFamily, opens: readonly Buffer[], openLengths: readonly number[], longest: number, scale: number, slot: number, size: number): number {
  let next = slot;
  while (next < size && !out.hasCompleted) {
    const chunk = out.claim(family.histogramBytes(next, longest));
    out.advance(family.histogramLines(chunk, out.position, next, opens, openLengths, scale));
    next += 1;
  }
  return next;
}
