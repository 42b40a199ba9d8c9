import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterSecond, RouteSecond } from '@gateway/events';
import { CompactInterval, IntervalRing } from './interval-ring';
import { collectGarbage } from '@gateway/testing';

/**
 * The bound docs/telemetry.md states: the sealed series of 1,000 routes that all have traffic in
 * every second (the worst case: idle routes are not stored), 15 minutes at 1 s and 24 hours at
 * 1 min. The number of data planes does not enter: series are stored merged.
 */
test('the full series of 1,000 busy routes and 20 upstreams take under 250 MB', (t) => {
  const row = (i: number): Omit<RouteSecond, 'routeId'> => ({
    requests: 5000 + i,
    statusClasses: [4900, 50, 40, 10 + i],
    outcomes: [4990, 5, 1, 1, 1, 1, 1],
    retries: 3,
    bytesIn: 612_000,
    bytesOut: 24_000_000,
    latency: { p50: 20.1, p95: 61.3, p99: 140.2, meanMs: 27.4 },
    breaker: 'CLOSED',
    health: 'Healthy',
  });
  const interval = (start: number, durationMs: number): ClusterSecond => ({
    start,
    durationMs,
    reporting: 20,
    total: row(0),
    routes: Array.from({ length: 1000 }, (_, i) => ({ routeId: `route-${String(i).padStart(4, '0')}-a1b2c3d4`, ...row(i) })),
    upstreams: Array.from({ length: 20 }, (_, i) => ({ upstream: `svc-${i}`, ...row(i) })),
  });
  const second = interval(0, 1000);
  const minute = interval(0, 60_000);
  const routeIds = second.routes.map((r) => r.routeId);
  collectGarbage();
  const heapBefore = process.memoryUsage();
  const seconds = new IntervalRing(1000, 900);
  const minutes = new IntervalRing(60_000, 1440);
  for (let s = 0; s < 900; s += 1) seconds.put(new CompactInterval({ ...second, start: s * 1000 }));
  for (let m = 0; m < 1440; m += 1) minutes.put(new CompactInterval({ ...minute, start: m * 60_000 }));
  collectGarbage();
  const heapAfter = process.memoryUsage();
  const tables = seconds.byteLength() + minutes.byteLength();
  const heap = heapAfter.heapUsed + heapAfter.arrayBuffers - (heapBefore.heapUsed + heapBefore.arrayBuffers);
  t.diagnostic(`series of 1,000 busy routes: ${(tables / 1e6).toFixed(1)} MB of tables; heap + array buffers after collection grew ${(heap / 1e6).toFixed(1)} MB`);
  assert.ok(tables < 250e6, `${tables} bytes`);
  assert.equal(seconds.range(0, 900_000).length, 900);
  assert.equal(minutes.range(0, 86_400_000).length, 1440);
  assert.deepEqual(minutes.get(60_000)?.expand().routes.find((r) => r.routeId === routeIds[7])?.statusClasses, [4900, 50, 40, 17]);
  // Overwritten, not grown: a second pass over the rings keeps the same size.
  for (let s = 900; s < 1800; s += 1) seconds.put(new CompactInterval({ ...second, start: s * 1000 }));
  assert.equal(seconds.byteLength() + minutes.byteLength(), tables);
  assert.equal(seconds.range(0, 900_000).length, 0);
});

