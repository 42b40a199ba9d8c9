import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeTelemetryWindow, LatencySketch, type RouteWindow } from '@gateway/events';
import { ClusterSeries } from './cluster-series';
import { collectGarbage } from '@gateway/testing';

// Its own file (its own process): the sealed-series spec's rings must not be collected mid-measure.
/**
 * What the data planes add: 20 data planes, each reporting 1,000 busy routes and 20 upstreams
 * every second (wire windows, parsed and merged as the bus delivers them), for long enough that the
 * seconds still open are at their most (sealed 5 s after their end) and a minute is being rolled
 * up. Measured on the whole ClusterSeries, after collection, beside the sealed series it holds.
 */
test('20 data planes with 1,000 busy routes each add the open seconds and the open minute: under 60 MB', (t) => {
  const sketch = new LatencySketch();
  let spread = 0;
  const routeIds = Array.from({ length: 1000 }, (_, i) => `route-${String(i).padStart(4, '0')}-a1b2c3d4`);
  const traffic = (): Omit<RouteWindow, 'routeId'> => {
    sketch.reset();
    // 100 latencies around 20 ms over about 66 buckets, as the wire-size spec's busy route.
    for (let i = 0; i < 100; i += 1) sketch.record(20 * 1.0202 ** (((spread += 37) % 131) - 65));
    return { requests: 100, statusClasses: [97, 1, 1, 1], outcomes: [94, 1, 1, 1, 1, 1, 1], retries: 6, bytesIn: 61_250, bytesOut: 2_412_300, latency: sketch.toWire(), breaker: 'CLOSED' };
  };
  const planes = Array.from({ length: 20 }, (_, p) =>
    encodeTelemetryWindow({
      instanceId: `dp-${p}`,
      start: 0,
      durationMs: 1000,
      address: `10.0.0.${p}:8080`,
      version: '0.1.0',
      configRevision: 7,
      droppedWindows: 0,
      routes: routeIds.map((routeId) => ({ routeId, ...traffic() })),
      upstreams: Array.from({ length: 20 }, (_, u) => ({ upstream: `svc-${u}`, ...traffic() })),
      process: { heapUsedBytes: 1, rssBytes: 1, eventLoopLagMs: 1, openConnections: 1 },
    }),
  );
  const T0 = 1_790_000_040_000; // 40 s into a minute: the open minute fills while seconds seal
  let now = T0;
  const series = new ClusterSeries(() => now);
  collectGarbage();
  const before = process.memoryUsage();
  for (let s = 0; s < 12; s += 1) {
    now = T0 + (s + 1) * 1000 + 50;
    for (const wire of planes) assert.equal(series.ingest({ ...wire, s: T0 + s * 1000 }), 'merged');
    series.tick();
  }
  collectGarbage();
  const after = process.memoryUsage();
  const grown = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
  const open = grown - series.seriesBytes();
  t.diagnostic(
    `20 data planes x 1,000 busy routes: ${series.openSeconds().length} open seconds; heap + array buffers grew ${(grown / 1e6).toFixed(1)} MB, ` +
      `of which ${(series.seriesBytes() / 1e6).toFixed(1)} MB sealed series tables and ${(open / 1e6).toFixed(1)} MB open seconds, open minute and data-plane directory`,
  );
  assert.equal(series.dataPlanes().length, 20);
  assert.ok(series.openSeconds().length >= 5, 'the open seconds are at their most');
  assert.equal(series.seconds(T0, T0 + 12_000).at(0)?.routes.find((r) => r.routeId === routeIds[3])?.requests, 2000, '20 data planes merged');
  assert.ok(open < 60e6, `${open} bytes`);
});
