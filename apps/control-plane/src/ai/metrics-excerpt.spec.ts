import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeTelemetryWindow, LatencySketch, type TelemetryWire } from '@gateway/events';
import { ClusterSeries } from '../monitoring/cluster-series';
import { redact } from './context-redaction';
import { metricsExcerpt } from './metrics-excerpt';

const T0 = 1_789_999_980_000; // a minute boundary

/** One data plane's second: `ok` 200s and `failed` 500s on `routeId`, each answered in `ms`. */
function second(start: number, routeId: string, ok: number, failed: number, ms: number): TelemetryWire {
  const sketch = new LatencySketch();
  for (let i = 0; i < ok + failed; i += 1) sketch.record(ms);
  const requests = ok + failed;
  return encodeTelemetryWindow({
    instanceId: 'dp-a',
    start,
    durationMs: 1000,
    address: '10.0.0.1:8080',
    version: '0.1.0',
    configRevision: 1,
    droppedWindows: 0,
    routes: [{ routeId, requests, statusClasses: [ok, 0, 0, failed], outcomes: [requests, 0, 0, 0, 0, 0, 0], retries: 0, bytesIn: 0, bytesOut: 0, latency: sketch.toWire() }],
    upstreams: [],
    process: { heapUsedBytes: 1, rssBytes: 2, eventLoopLagMs: 0.5, openConnections: 1 },
  });
}

test('the affected routes: rps, error % and the worst p95/p99 over the window and per slice, from the real merged series', () => {
  let now = T0;
  const series = new ClusterSeries(() => now);
  // 60 s of `users`: the first 30 s healthy (10 rps at 20 ms), the last 30 s failing (10 rps, half 5xx, at 400 ms).
  for (let s = 0; s < 60; s += 1) {
    now = T0 + s * 1000 + 100;
    assert.equal(series.ingest(s < 30 ? second(T0 + s * 1000, 'users', 10, 0, 20) : second(T0 + s * 1000, 'users', 5, 5, 400)), 'merged');
    series.ingest(second(T0 + s * 1000, 'orders', 1, 0, 5));
    series.tick();
  }
  now = T0 + 70_000;
  series.tick();
  const [users, ...rest] = metricsExcerpt(series, ['users'], T0, T0 + 60_000);
  assert.equal(rest.length, 0, 'only the routes asked for');
  assert.ok(users !== undefined);
  assert.deepEqual([users.route, users.requests, users.rps, users.errorPercent], ['users', 600, 10, 25]);
  assert.ok(users.p95Ms >= 380 && users.p99Ms >= 380, `the failing half's latency shows: ${users.p95Ms}/${users.p99Ms}`);
  assert.equal(users.slices.length, 12);
  const [first, last] = [users.slices[0], users.slices.at(-1)];
  assert.deepEqual([first?.from, first?.rps, first?.errorPercent], [new Date(T0).toISOString(), 10, 0]);
  assert.ok((first?.p95Ms ?? 0) < 30, 'the healthy start is fast');
  assert.deepEqual([last?.rps, last?.errorPercent], [10, 50]);
  // No traffic in the window: zeros, not a gap or an error.
  const quiet = metricsExcerpt(series, ['users'], T0 - 600_000, T0 - 300_000)[0];
  assert.deepEqual([quiet?.requests, quiet?.rps, quiet?.errorPercent, quiet?.p95Ms], [0, 0, 0, 0]);
  // 20 minutes later the seconds are gone: a 25-minute window reads the sealed minute, in 3-minute slices.
  now = T0 + 20 * 60_000;
  series.tick();
  const later = metricsExcerpt(series, ['users'], T0 - 5 * 60_000, T0 + 20 * 60_000)[0];
  assert.deepEqual([later?.requests, later?.rps, later?.errorPercent, later?.slices.length], [600, 0.4, 25, 9]);
  assert.deepEqual(later?.slices.map((slice) => slice.requests), [0, 600, 0, 0, 0, 0, 0, 0, 0]);
});

test('the excerpt survives redaction unchanged (no key or value of it looks like a secret or an address)', () => {
  const series = new ClusterSeries(() => T0 + 5000);
  series.ingest(second(T0, 'users', 3, 1, 50));
  const excerpt = metricsExcerpt(series, ['users'], T0, T0 + 4000);
  assert.equal(excerpt[0]?.requests, 4, 'open seconds count too');
  assert.deepEqual(redact(excerpt, false), excerpt);
});
