import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LATENCY_BUCKETS, LatencySketch } from './latency-sketch';
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
    v: 1,
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

test('a valid window parses to an equal typed copy that drops unknown fields', () => {
  const window = validWindow();
  const parsed = parseTelemetryWindow(JSON.parse(JSON.stringify({ ...window, extra: 'ignored' })));
  assert.deepEqual(parsed, window);
});

/** What JSON.parse gives: the cases below break the window in ways its type forbids. */
type ParsedJson = ReturnType<typeof JSON.parse>;

/** Each bad window, and the field its error must name. */
const BAD: { name: string; field: string; mutate: (w: ParsedJson) => void }[] = [
  { name: 'not an object', field: 'window', mutate: () => undefined },
  { name: 'another wire version', field: 'v', mutate: (w) => (w.v = 2) },
  { name: 'start off the window grid', field: 'start', mutate: (w) => (w.start += 1) },
  { name: 'zero duration', field: 'durationMs', mutate: (w) => (w.durationMs = 0) },
  { name: 'empty instance id', field: 'instanceId', mutate: (w) => (w.instanceId = '') },
  { name: 'huge route id', field: 'routes[0].routeId', mutate: (w) => (w.routes[0].routeId = 'r'.repeat(10_000)) },
  { name: 'negative count', field: 'routes[0].requests', mutate: (w) => (w.routes[0].requests = -1) },
  { name: 'fractional count', field: 'routes[0].retries', mutate: (w) => (w.routes[0].retries = 0.5) },
  { name: 'short status tuple', field: 'routes[0].statusClasses', mutate: (w) => w.routes[0].statusClasses.pop() },
  { name: 'string in outcomes', field: 'routes[0].outcomes[3]', mutate: (w) => (w.routes[0].outcomes[3] = '1') },
  { name: 'odd bucket list', field: 'routes[0].latency.buckets', mutate: (w) => w.routes[0].latency.buckets.push(1) },
  { name: 'zero gap', field: 'routes[0].latency.buckets[2]', mutate: (w) => (w.routes[0].latency.buckets[2] = 0) },
  { name: 'bucket past the scale', field: 'routes[0].latency.buckets[0]', mutate: (w) => (w.routes[0].latency.buckets[0] = LATENCY_BUCKETS) },
  { name: 'empty bucket sent', field: 'routes[0].latency.buckets[1]', mutate: (w) => (w.routes[0].latency.buckets[1] = 0) },
  { name: 'count not matching buckets', field: 'routes[0].latency.count', mutate: (w) => (w.routes[0].latency.count += 1) },
  { name: 'infinite sum', field: 'routes[0].latency.sumMs', mutate: (w) => (w.routes[0].latency.sumMs = Number.POSITIVE_INFINITY) },
  { name: 'unknown breaker state', field: 'routes[0].breaker', mutate: (w) => (w.routes[0].breaker = 'BROKEN') },
  { name: 'top key without key', field: 'routes[0].topKeys[0].key', mutate: (w) => delete w.routes[0].topKeys[0].key },
  { name: 'too many top keys', field: 'routes[0].topKeys', mutate: (w) => (w.routes[0].topKeys = Array(101).fill(w.routes[0].topKeys[0])) },
  { name: 'upstream health unknown', field: 'upstreams[0].health', mutate: (w) => (w.upstreams[0].health = 'Fine') },
  { name: 'routes not a list', field: 'routes', mutate: (w) => (w.routes = {}) },
  { name: 'missing gauges', field: 'process', mutate: (w) => delete w.process },
  { name: 'negative lag', field: 'process.eventLoopLagMs', mutate: (w) => (w.process.eventLoopLagMs = -3) },
];

for (const { name, field, mutate } of BAD) {
  test(`rejects a window with ${name}, naming ${field}`, () => {
    const window: ParsedJson = JSON.parse(JSON.stringify(validWindow()));
    const result = mutate(window);
    const input = name === 'not an object' ? result : window;
    assert.throws(
      () => parseTelemetryWindow(input),
      (error: unknown) => error instanceof TelemetryWindowError && error.field === field && error.message.includes(field),
    );
  });
}
