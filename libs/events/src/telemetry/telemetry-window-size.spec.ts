import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom, standardNormal } from './seeded-random';
import { LatencySketch } from './latency-sketch';
import { TopKeys } from './top-keys';
import { encodeTelemetryWindow } from './encode-telemetry-window';
import type { RouteWindow, TelemetryWindow } from './telemetry-window.types';

/**
 * The numbers docs/telemetry.md states: one window of a data plane with 1,000 busy routes
 * (log-normal latencies around 20 ms, every second route rate-limited with its 10 heaviest of 200
 * client keys) and 20 upstreams, at three loads a route, encoded for the bus (wire version 2). The
 * bound is what the data plane's publisher and the bus (4 MiB message bound) must carry; most of it
 * is the latency buckets.
 */
const LOADS = [
  { requestsPerRoute: 10, maxBytes: 200_000 },
  { requestsPerRoute: 100, maxBytes: 400_000 },
  { requestsPerRoute: 500, maxBytes: 520_000 },
];

for (const { requestsPerRoute, maxBytes } of LOADS) test(`a window of 1,000 routes at ${requestsPerRoute} requests each encodes to under ${maxBytes / 1000} kB of JSON`, (t) => {
  const random = seededRandom(12);
  const sketch = new LatencySketch();
  const keys = new TopKeys(32);
  const routes: RouteWindow[] = [];
  for (let r = 0; r < 1000; r += 1) {
    sketch.reset();
    keys.reset();
    for (let i = 0; i < requestsPerRoute; i += 1) {
      const z = standardNormal(random);
      sketch.record(Math.exp(Math.log(20) + 0.6 * z));
      if (r % 2 === 0) keys.observe(`ip:198.51.100.${Math.floor(200 * random() ** 3)}`, random() < 0.05);
    }
    routes.push({
      routeId: `route-${String(r).padStart(4, '0')}-a1b2c3d4`,
      requests: requestsPerRoute,
      statusClasses: [requestsPerRoute - 3, 1, 1, 1],
      outcomes: [requestsPerRoute - 6, 1, 1, 1, 1, 1, 1],
      retries: 6,
      bytesIn: 61_250,
      bytesOut: 2_412_300,
      latency: sketch.toWire(),
      ...(r % 2 === 0 ? { topKeys: keys.top(10) } : {}),
      breaker: 'CLOSED',
    });
  }
  const window: TelemetryWindow = {
    instanceId: 'dp-5f1c2e7a',
    start: 1_790_000_000_000,
    durationMs: 1000,
    address: '10.0.12.34:8080',
    version: '0.1.0',
    configRevision: 4812,
    droppedWindows: 0,
    routes,
    upstreams: routes.slice(0, 20).map(({ routeId, topKeys: _keys, ...counts }) => ({ upstream: `svc-${routeId}`, ...counts, health: 'Healthy' as const })),
    process: { heapUsedBytes: 182_000_000, rssBytes: 260_000_000, eventLoopLagMs: 1.7, openConnections: 2400 },
  };
  const wire = JSON.stringify(encodeTelemetryWindow(window));
  const bytes = Buffer.byteLength(wire);
  // The signed bus carries the message as an escaped JSON string inside its envelope (signed-bus.ts).
  const onTheBus = Buffer.byteLength(JSON.stringify({ body: wire }));
  const objectForm = Buffer.byteLength(JSON.stringify(window));
  const perRoute = routes.reduce((sum, r) => sum + r.latency.buckets.length / 2, 0) / routes.length;
  t.diagnostic(
    `window of 1,000 routes at ${requestsPerRoute} requests: ${bytes} bytes of JSON (${Math.round(bytes / 1000)} bytes a route; ${perRoute.toFixed(0)} latency buckets a route); ` +
      `${onTheBus} bytes as a bus body; the object form would be ${objectForm} bytes (${(objectForm / bytes).toFixed(2)}x)`,
  );
  assert.ok(bytes < maxBytes, `${bytes} bytes`);
  assert.ok(bytes > 100_000, 'the measurement covers every route');
  assert.ok(objectForm > 2 * bytes, 'the wire form is less than half the object form');
});
