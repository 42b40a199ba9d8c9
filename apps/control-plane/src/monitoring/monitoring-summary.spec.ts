import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeTelemetryWindow, LatencySketch, type RouteWindow, type TelemetryWire } from '@gateway/events';
import { ClusterSeries } from './cluster-series';
import { seriesOf } from './monitoring-series';
import { summarize } from './monitoring-summary';

const T0 = 1_789_999_980_000;

function route(routeId: string, latencies: number[], statusClasses: RouteWindow['statusClasses'], outcomes: RouteWindow['outcomes'], extra: Partial<RouteWindow> = {}): RouteWindow {
  const sketch = new LatencySketch();
  for (const ms of latencies) sketch.record(ms);
  return { routeId, requests: latencies.length, statusClasses, outcomes, retries: 0, bytesIn: 0, bytesOut: 0, latency: sketch.toWire(), ...extra };
}

function window(instanceId: string, start: number, routes: RouteWindow[]): TelemetryWire {
  return encodeTelemetryWindow({ instanceId, start, durationMs: 1000, address: 'a:1', version: '1', configRevision: 1, droppedWindows: 0, routes, upstreams: [], process: { heapUsedBytes: 0, rssBytes: 0, eventLoopLagMs: 0, openConnections: 0 } });
}

test('the summary counts sealed and open seconds of every data plane in the window, with rates and ratios', () => {
  let now = T0 + 1000;
  const series = new ClusterSeries(() => now);
  // Second 0 (will be sealed) from two planes, second 9 (open) from one; second -400 is outside a 5-minute window.
  series.ingest(window('a', T0, [route('orders', [10, 10, 10, 10], [3, 0, 0, 1], [3, 1, 0, 0, 0, 0, 0], { breaker: 'CLOSED' })]));
  series.ingest(window('b', T0, [route('orders', [30, 30, 30, 30], [2, 0, 2, 0], [2, 2, 0, 0, 0, 0, 0]), route('cached', [1, 1], [2, 0, 0, 0], [0, 0, 0, 0, 2, 0, 0])]));
  now = T0 + 7000;
  series.tick();
  series.ingest(window('a', T0 + 6000, [route('orders', [20, 20], [2, 0, 0, 0], [2, 0, 0, 0, 0, 0, 0], { breaker: 'OPEN' })]));
  const summary = summarize(series, 300_000, now);
  assert.equal(summary.windowSeconds, 300);
  assert.equal(summary.reporting, 1, 'the latest second had one data plane');
  assert.deepEqual(summary.total, { requests: 12, rps: 0.04, errorPercent: 8.333, p50: summary.total.p50, p95: summary.total.p95, p99: summary.total.p99, rateLimitHits: 3, cacheHitRatio: 0.1667 });
  const orders = summary.routes.find((r) => r.routeId === 'orders')!;
  assert.deepEqual([orders.requests, orders.errorPercent, orders.rateLimitHits, orders.breaker, orders.health], [10, 10, 3, 'OPEN', null]);
  assert.ok(Math.abs(orders.p50 - 20) / 20 <= 0.01, `p50 ${orders.p50}`);
  assert.ok(Math.abs(orders.p99 - 30) / 30 <= 0.01, `p99 ${orders.p99}`);
  assert.deepEqual(summary.routes.map((r) => r.routeId), ['cached', 'orders']);
  assert.equal(summary.routes[0].cacheHitRatio, 1);
});

test('a series has a point for every step, sealed and open seconds alike, 0 where nothing was reported', () => {
  let now = T0 + 1000;
  const series = new ClusterSeries(() => now);
  series.ingest(window('a', T0, [route('orders', [10], [1, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0])]));
  now = T0 + 7000;
  series.tick();
  series.ingest(window('a', T0 + 2000, [route('orders', [10, 10], [2, 0, 0, 0], [2, 0, 0, 0, 0, 0, 0])]));
  const points = seriesOf(series, { route: 'orders', metric: 'requests', from: T0, to: T0 + 4000, step: '1s' });
  assert.deepEqual(points.map((p) => p.value), [1, 0, 2, 0]);
  assert.equal(points[0].t, new Date(T0).toISOString());
  assert.deepEqual(seriesOf(series, { metric: 'requests', from: T0, to: T0 + 1000, step: '1s' }).map((p) => p.value), [1], 'the cluster total');
});
