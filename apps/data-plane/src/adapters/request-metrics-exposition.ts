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

const CLOSE = 125; // }
const SPACE = 32;

function* counter(out: ExpositionWriter, name: string, help: string, family: SeriesFamily): Generator<Buffer, void, undefined> {
  header(out, name, help, 'counter');
  const open = Buffer.from(`${name}{`);
  // Series created while this family streams wait for the next scrape.
  const size = family.size;
  for (let slot = 0; slot < size; slot += 1) {
    out.bytes(open);
    family.writeLabels(out, slot);
    out.byte(CLOSE);
    out.byte(SPACE);
    out.number(family.count(slot));
    out.newline();
    if (out.hasCompleted) yield* out.takeCompleted();
  }
}

function* histogram(out: ExpositionWriter, name: string, help: string, family: SeriesFamily, scale: number): Generator<Buffer, void, undefined> {
  header(out, name, help, 'histogram');
  const bucketOpen = [...DURATION_BUCKETS_MS.map((bound) => `${bound * scale}`), '+Inf'].map((le) => Buffer.from(`${name}_bucket{le="${le}",`));
  const sumOpen = Buffer.from(`${name}_sum{`);
  const countOpen = Buffer.from(`${name}_count{`);
  const longestOpen = Math.max(sumOpen.length, countOpen.length, ...bucketOpen.map((b) => b.length));
  const lines = BUCKET_COUNT + 2;
  const size = family.size;
  for (let slot = 0; slot < size; slot += 1) {
    // The whole series goes into one chunk: its label set is written once and copied within the
    // chunk to its other 12 lines. One series is written within one turn of the event loop, so its
    // buckets, sum and count agree.
    out.reserve(lines * (longestOpen + family.labelLength(slot) + 3 + NUMBER_ROOM));
    out.bytes(bucketOpen[0] as Buffer);
    const labelsAt = out.position;
    family.writeLabels(out, slot);
    const labelsEnd = out.position;
    let cumulative = 0;
    for (let b = 0; b < BUCKET_COUNT; b += 1) {
      if (b > 0) {
        out.bytes(bucketOpen[b] as Buffer);
        out.again(labelsAt, labelsEnd);
      }
      cumulative += family.bucket(slot, b);
      closeLine(out, cumulative);
    }
    out.bytes(sumOpen);
    out.again(labelsAt, labelsEnd);
    closeLine(out, family.sumMs(slot) * scale);
    out.bytes(countOpen);
    out.again(labelsAt, labelsEnd);
    closeLine(out, family.count(slot));
    if (out.hasCompleted) yield* out.takeCompleted();
  }
}

/** `} <value>\n` */
function closeLine(out: ExpositionWriter, value: number): void {
  out.byte(CLOSE);
  out.byte(SPACE);
  out.number(value);
  out.newline();
}
