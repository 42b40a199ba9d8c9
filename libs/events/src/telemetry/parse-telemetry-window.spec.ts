import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LATENCY_BUCKETS, LatencySketch, MIN_TRACKED_MS, RELATIVE_ACCURACY } from './latency-sketch';
import fc from 'fast-check';
import { encodeTelemetryWindow } from './encode-telemetry-window';
import { parseTelemetryWindow, TelemetryWindowError } from './parse-telemetry-window';
import type { RouteWindow, TelemetryWindow, TrafficCounts } from './telemetry-window.types';

function routeWindow(routeId: string, latencies: number[]): RouteWindow {
  const sketch = new LatencySketch();
  for (const ms of latencies) sketch.record(ms);
  return {
    routeId,
    requests: latencies.length,
    statusClasses: [latencies.length - 1, 0, 1, 0],
    outcomes: [latencies.length - 1, 1, 0, 0, 0, 0, 0],
    retries: 0,
    bytesIn: 120,
    bytesOut: 4096,
    latency: sketch.toWire(),
    topKeys: [{ key: 'ip:203.0.113.7', count: 3, rejections: 1, error: 0 }],
    breaker: 'CLOSED',
  };
}

function traffic({ routeId: _id, topKeys: _keys, breaker: _breaker, ...counts }: RouteWindow): TrafficCounts {
  return counts;
}

function validWindow(): TelemetryWindow {
  return {
    instanceId: 'dp-1',
    start: 1_790_000_000_000,
    durationMs: 1000,
    address: '10.0.0.4:8080',
    version: '0.1.0',
    configRevision: 12,
    droppedWindows: 0,
    routes: [routeWindow('orders', [3, 4, 5, 40])],
    upstreams: [{ upstream: 'orders-svc', ...traffic(routeWindow('x', [3])), health: 'Healthy' }],
    process: { heapUsedBytes: 1e7, rssBytes: 5e7, eventLoopLagMs: 1.2, openConnections: 3 },
  };
}

/** The window as the control plane receives it: encoded, through JSON. */
const onTheBus = (window: TelemetryWindow): ParsedJson => JSON.parse(JSON.stringify(encodeTelemetryWindow(window)));

test('an encoded window parses back to an equal typed copy; unknown fields are ignored', () => {
  const window = validWindow();
  assert.deepEqual(parseTelemetryWindow({ ...onTheBus(window), extra: 'ignored' }), window);
});

test('strings travel once: a key seen on several routes and a route named like an upstream share one table entry', () => {
  const window = validWindow();
  window.routes.push({ ...routeWindow('orders-svc', [7]), topKeys: [{ key: 'ip:203.0.113.7', count: 1, rejections: 0, error: 0 }] });
  const wire = encodeTelemetryWindow(window);
  assert.deepEqual(wire.k, ['orders', 'ip:203.0.113.7', 'orders-svc']);
  assert.deepEqual(parseTelemetryWindow(JSON.parse(JSON.stringify(wire))), window);
});

test('latency buckets travel as runs: neighbours cost their count, gaps one negative skip', () => {
  const gamma = (1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY);
  /** A latency in the middle of bucket k: (MIN·γ^(k-1), MIN·γ^k]. */
  const inBucket = (k: number): number => MIN_TRACKED_MS * gamma ** (k - 0.5);
  const sketch = new LatencySketch();
  for (const k of [300, 300, 301, 302, 340, 340]) sketch.record(inBucket(k));
  const route = { ...routeWindow('r', [1, 1, 1, 1, 1, 1]), latency: sketch.toWire() };
  const runs = encodeTelemetryWindow({ ...validWindow(), routes: [route] }).r[0]?.[19];
  assert.deepEqual(runs, [300, 2, 1, 1, -37, 2], 'first index, three neighbours, a skip of 37 empty buckets, the count of bucket 340');
  assert.deepEqual(parseTelemetryWindow(onTheBus({ ...validWindow(), routes: [route] })).routes[0]?.latency, route.latency);
});

/** What JSON.parse gives: the cases below break the window in ways its type forbids. */
type ParsedJson = ReturnType<typeof JSON.parse>;

/** Each bad window (its wire form), and the field its error must name. */
const BAD: { name: string; field: string; mutate: (w: ParsedJson) => unknown }[] = [
  { name: 'not an object', field: 'window', mutate: () => [] },
  { name: 'the previous wire version', field: 'v', mutate: (w) => (w.v = 1) },
  { name: 'start off the window grid', field: 'start', mutate: (w) => (w.s += 1) },
  { name: 'zero duration', field: 'durationMs', mutate: (w) => (w.d = 0) },
  { name: 'empty instance id', field: 'instanceId', mutate: (w) => (w.i = '') },
  { name: 'huge route id', field: 'strings[0]', mutate: (w) => (w.k[0] = 'r'.repeat(10_000)) },
  { name: 'name outside the string table', field: 'routes[0].name', mutate: (w) => (w.r[0][0] = 99) },
  { name: 'string table not a list', field: 'strings', mutate: (w) => (w.k = 'orders') },
  { name: 'negative count', field: 'routes[0].requests', mutate: (w) => (w.r[0][1] = -1) },
  { name: 'fractional count', field: 'routes[0].retries', mutate: (w) => (w.r[0][13] = 0.5) },
  { name: 'short row', field: 'routes[0]', mutate: (w) => w.r[0].splice(10, 3) },
  { name: 'long row', field: 'routes[0]', mutate: (w) => w.r[0].push([], 1) },
  { name: 'string in outcomes', field: 'routes[0].outcomes[3]', mutate: (w) => (w.r[0][9] = '1') },
  { name: 'a first bucket without counts', field: 'routes[0].latency.buckets', mutate: (w) => (w.r[0][19] = [5]) },
  { name: 'first bucket 0 (the zero bucket has its own counter)', field: 'routes[0].latency.buckets[0]', mutate: (w) => (w.r[0][19][0] = 0) },
  { name: 'first bucket past the scale', field: 'routes[0].latency.buckets[0]', mutate: (w) => (w.r[0][19][0] = LATENCY_BUCKETS) },
  { name: 'zero in the runs', field: 'routes[0].latency.buckets[1]', mutate: (w) => (w.r[0][19][1] = 0) },
  { name: 'trailing skip', field: 'routes[0].latency.buckets[2]', mutate: (w) => (w.r[0][19] = [5, 1, -1]) },
  { name: 'two skips in a row', field: 'routes[0].latency.buckets[2]', mutate: (w) => (w.r[0][19] = [5, 1, -1, -1, 1]) },
  { name: 'runs past the scale', field: 'routes[0].latency.buckets[2]', mutate: (w) => (w.r[0][19] = [LATENCY_BUCKETS - 1, 1, 1]) },
  { name: 'a skip past the scale', field: 'routes[0].latency.buckets[3]', mutate: (w) => (w.r[0][19] = [5, 1, -Number.MAX_SAFE_INTEGER, 1]) },
  { name: 'negative latency sum', field: 'routes[0].latency.sumUs', mutate: (w) => (w.r[0][16] = -5) },
  { name: 'unknown resilience code', field: 'routes[0].resilience', mutate: (w) => (w.r[0][18] = 3 + 4 * 9) },
  { name: 'top keys not in quadruples', field: 'routes[0].topKeys', mutate: (w) => (w.r[0][20] = [0, 1, 2]) },
  { name: 'top key outside the string table', field: 'routes[0].topKeys[0].key', mutate: (w) => (w.r[0][20][0] = 77) },
  { name: 'too many top keys', field: 'routes[0].topKeys', mutate: (w) => (w.r[0][20] = Array(101).fill([1, 1, 0, 0]).flat()) },
  { name: 'upstream health unknown', field: 'upstreams[0].resilience', mutate: (w) => (w.u[0][18] = 4 * 7) },
  { name: 'routes not a list', field: 'routes', mutate: (w) => (w.r = {}) },
  { name: 'missing gauges', field: 'process', mutate: (w) => delete w.p },
  { name: 'negative lag', field: 'process.eventLoopLagMs', mutate: (w) => (w.p[2] = -3) },
];

for (const { name, field, mutate } of BAD) {
  test(`rejects a window with ${name}, naming ${field}`, () => {
    const window: ParsedJson = onTheBus(validWindow());
    const result = mutate(window);
    const input = name === 'not an object' ? result : window;
    assert.throws(
      () => parseTelemetryWindow(input),
      (error: unknown) => error instanceof TelemetryWindowError && error.field === field && error.message.includes(field),
    );
  });
}

/** Only a parsed window or a TelemetryWindowError: never another exception, whatever arrives. */
function parsesOrRefuses(input: unknown): void {
  try {
    parseTelemetryWindow(input);
  } catch (error) {
    if (!(error instanceof TelemetryWindowError)) throw error;
  }
}

test('fuzz: any JSON value is parsed or refused with a TelemetryWindowError', () => {
  fc.assert(fc.property(fc.jsonValue(), parsesOrRefuses), { numRuns: 2000 });
});

/** Replaces the value at a random path of a (JSON) value: a forged window close to a valid one. */
function replaceAt(value: ParsedJson, path: readonly number[], replacement: unknown): ParsedJson {
  if (path.length === 0 || value === null || typeof value !== 'object') return replacement;
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const key = keys[(path[0] as number) % keys.length] as string;
  const copy = Array.isArray(value) ? [...value] : { ...value };
  (copy as Record<string, unknown>)[key] = replaceAt((value as Record<string, unknown>)[key], path.slice(1), replacement);
  return copy;
}

test('fuzz: a valid window with any part replaced by any value is parsed or refused, never a crash', () => {
  const base = onTheBus(validWindow());
  const anyValue = fc.oneof(fc.jsonValue(), fc.constantFrom(-1, 0, 1, 0.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER, LATENCY_BUCKETS, -LATENCY_BUCKETS, '', [], {}, null));
  fc.assert(
    fc.property(fc.array(fc.array(fc.nat(40), { maxLength: 5 }), { minLength: 1, maxLength: 4 }), fc.array(anyValue, { minLength: 4, maxLength: 4 }), (paths, values) => {
      let forged = base;
      paths.forEach((path, i) => (forged = replaceAt(forged, path, values[i])));
      parsesOrRefuses(forged);
    }),
    { numRuns: 3000 },
  );
});

const count = fc.nat(1_000_000);
const arbitraryLatency = fc.array(fc.double({ min: 0, max: 700_000, noNaN: true }), { maxLength: 60 }).map((samples) => {
  const sketch = new LatencySketch();
  for (const ms of samples) sketch.record(ms);
  return sketch.toWire();
});
const arbitraryTraffic = fc.record({
  requests: count,
  statusClasses: fc.tuple(count, count, count, count),
  outcomes: fc.tuple(count, count, count, count, count, count, count),
  retries: count,
  bytesIn: fc.nat(),
  bytesOut: fc.nat(),
  latency: arbitraryLatency,
});
const name = fc.string({ minLength: 1, maxLength: 40 });
const breaker = fc.option(fc.constantFrom('CLOSED' as const, 'OPEN' as const, 'HALF_OPEN' as const), { nil: undefined });
const health = fc.option(fc.constantFrom('Healthy' as const, 'Degraded' as const, 'Unhealthy' as const, 'Unknown' as const), { nil: undefined });
const topKey = fc.record({ key: fc.constantFrom('ip:a', 'ip:b', 'key:c', 'orders'), count, rejections: count, error: count });
/** JSON has no -0. */
const withoutNegativeZero = (ms: number): number => ms + 0;
/** Drops the optional fields left undefined, as JSON does. */
const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

test('property: any window survives encoding, JSON and parsing unchanged', () => {
  const arbitraryWindow = fc.record({
    instanceId: name,
    start: fc.nat(2_000_000_000).map((s) => s * 1000),
    durationMs: fc.constant(1000),
    address: name,
    version: name,
    configRevision: count,
    droppedWindows: count,
    routes: fc.array(fc.tuple(name, arbitraryTraffic, breaker, health, fc.option(fc.array(topKey, { maxLength: 10 }), { nil: undefined })).map(([routeId, t, b, h, keys]) => defined({ routeId, ...t, breaker: b, health: h, topKeys: keys })), { maxLength: 8 }),
    upstreams: fc.array(fc.tuple(name, arbitraryTraffic, breaker, health).map(([upstream, t, b, h]) => defined({ upstream, ...t, breaker: b, health: h })), { maxLength: 4 }),
    process: fc.record({ heapUsedBytes: fc.nat(), rssBytes: fc.nat(), eventLoopLagMs: fc.double({ min: 0, max: 1e6, noNaN: true }).map(withoutNegativeZero), openConnections: count }),
  });
  fc.assert(
    fc.property(arbitraryWindow, (window) => {
      // Compared with the window through JSON: what a sender can mean (no undefined, no prototypes).
      assert.deepEqual(parseTelemetryWindow(onTheBus(window)), JSON.parse(JSON.stringify(window)));
    }),
    { numRuns: 500 },
  );
});
