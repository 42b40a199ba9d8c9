import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeTelemetryWindow, LatencySketch, type ClusterSecond, type RouteWindow, type TelemetryWire } from '@gateway/events';
import { ClusterSeries } from './cluster-series';

const T0 = 1_789_999_980_000; // a minute boundary

/** A data plane's window with one route's latencies (all 200s, proxied). */
function windowOf(instanceId: string, start: number, routes: Record<string, number[]>, extra: Partial<RouteWindow> = {}): TelemetryWire {
  return encodeTelemetryWindow({
    instanceId,
    start,
    durationMs: 1000,
    address: `10.0.0.${instanceId.length}:8080`,
    version: '0.1.0',
    configRevision: 4,
    droppedWindows: 0,
    routes: Object.entries(routes).map(([routeId, latencies]) => {
      const sketch = new LatencySketch();
      for (const ms of latencies) sketch.record(ms);
      return {
        routeId,
        requests: latencies.length,
        statusClasses: [latencies.length, 0, 0, 0],
        outcomes: [latencies.length, 0, 0, 0, 0, 0, 0],
        retries: 0,
        bytesIn: 10 * latencies.length,
        bytesOut: 100 * latencies.length,
        latency: sketch.toWire(),
        ...extra,
      };
    }),
    upstreams: [],
    process: { heapUsedBytes: 1, rssBytes: 2, eventLoopLagMs: 0.5, openConnections: 1 },
  });
}

function clock(start: number): { now: () => number; set: (t: number) => void } {
  let t = start;
  return { now: () => t, set: (v) => (t = v) };
}

test('merges the windows of two data planes into their second with exact counts and accurate quantiles', () => {
  const time = clock(T0 + 1100);
  const series = new ClusterSeries(time.now);
  const a = Array.from({ length: 300 }, (_, i) => 1 + i / 10);
  const b = Array.from({ length: 100 }, (_, i) => 200 + i);
  assert.equal(series.ingest(windowOf('dp-a', T0, { orders: a }, { breaker: 'CLOSED', topKeys: [{ key: 'ip:a', count: 3, rejections: 1, error: 0 }] })), 'merged');
  assert.equal(series.ingest(windowOf('dp-b', T0, { orders: b, users: [5] }, { breaker: 'OPEN', topKeys: [{ key: 'ip:a', count: 2, rejections: 0, error: 0 }] })), 'merged');
  const sealed: ClusterSecond[] = [];
  series.onSecond((s) => sealed.push(s));
  time.set(T0 + 5999);
  series.tick();
  assert.equal(sealed.length, 0, 'not sealed before 5 s after its end');
  time.set(T0 + 6000);
  series.tick();
  assert.equal(sealed.length, 1);
  const [second] = sealed;
  assert.deepEqual([second.start, second.reporting, second.total.requests], [T0, 2, 401]);
  const orders = second.routes.find((r) => r.routeId === 'orders')!;
  assert.deepEqual([orders.requests, orders.statusClasses, orders.bytesOut, orders.breaker], [400, [400, 0, 0, 0], 40_000, 'OPEN']);
  assert.deepEqual(orders.topKeys, [{ key: 'ip:a', count: 5, rejections: 1, error: 0 }]);
  const all = [...a, ...b].sort((x, y) => x - y);
  for (const [q, value] of [[0.5, orders.latency.p50], [0.99, orders.latency.p99]] as const) {
    const exact = all[Math.floor(q * (all.length - 1))];
    assert.ok(Math.abs(value - exact) / exact <= 0.02, `p${q * 100}: ${value} vs ${exact}`);
  }
  const kept = series.seconds(T0, T0 + 1000);
  assert.equal(kept.length, 1);
  assert.deepEqual(kept[0].routes.map((r) => [r.routeId, r.requests, r.bytesIn]), [['orders', 400, 4000], ['users', 1, 10]]);
  assert.equal(kept[0].routes[0].topKeys, undefined, 'history keeps no top keys');
  assert.ok(Math.abs(kept[0].routes[0].latency.p99 - orders.latency.p99) / orders.latency.p99 < 1e-6);
});

test('a duplicate window is ignored; one up to 5 s late is merged; later ones are dropped and counted', () => {
  const time = clock(T0 + 1000);
  const series = new ClusterSeries(time.now);
  assert.equal(series.ingest(windowOf('dp-a', T0, { r: [1, 2] })), 'merged');
  assert.equal(series.ingest(windowOf('dp-a', T0, { r: [1, 2] })), 'duplicate');
  time.set(T0 + 6000);
  assert.equal(series.ingest(windowOf('dp-b', T0, { r: [3] })), 'merged', 'exactly 5 s after the end');
  series.tick();
  assert.equal(series.ingest(windowOf('dp-c', T0, { r: [4] })), 'late', 'its second is sealed');
  time.set(T0 + 9000);
  assert.equal(series.ingest(windowOf('dp-c', T0 + 2000, { r: [4] })), 'late', 'more than 5 s after its end');
  assert.equal(series.ingest({ v: 2, i: 'x' }), 'invalid');
  assert.deepEqual(series.dropped(), { duplicate: 1, late: 2, invalid: 1 });
  assert.match(series.lastInvalid ?? '', /durationMs/);
  assert.deepEqual(series.seconds(T0, T0 + 10_000).map((s) => [s.start, s.reporting, s.total.requests]), [[T0, 2, 3]]);
});

test('a data plane is stale after 3 missed windows', () => {
  const time = clock(T0 + 1000);
  const series = new ClusterSeries(time.now);
  series.ingest(windowOf('dp-a', T0, { r: [1] }));
  time.set(T0 + 4000);
  assert.deepEqual(series.dataPlanes().map((p) => [p.instanceId, p.status, p.configRevision]), [['dp-a', 'live', 4]]);
  time.set(T0 + 4001);
  assert.deepEqual(series.dataPlanes().map((p) => [p.instanceId, p.status]), [['dp-a', 'stale']]);
  series.ingest(windowOf('dp-a', T0 + 3000, { r: [1] }));
  assert.equal(series.dataPlanes()[0].status, 'live');
});

test('a second is settled once every live data plane reported it, or once sealed', () => {
  const time = clock(T0 + 1000);
  const series = new ClusterSeries(time.now);
  assert.equal(series.settled(T0), true, 'no data plane: nothing to wait for');
  series.ingest(windowOf('dp-a', T0, { r: [1] }));
  series.ingest(windowOf('dp-b', T0, { r: [2] }));
  assert.equal(series.settled(T0), true);
  time.set(T0 + 2000);
  series.ingest(windowOf('dp-a', T0 + 1000, { r: [1] }));
  assert.equal(series.settled(T0 + 1000), false, 'dp-b has not reported it yet');
  series.ingest(windowOf('dp-b', T0 + 1000, { r: [1] }));
  assert.equal(series.settled(T0 + 1000), true);
  // dp-b goes silent: its missing window holds the second back until dp-b turns stale.
  time.set(T0 + 3000);
  series.ingest(windowOf('dp-a', T0 + 2000, {}));
  assert.equal(series.settled(T0 + 2000), false);
  time.set(T0 + 2000 + 3000);
  assert.equal(series.settled(T0 + 2000), false, 'dp-b is live for 3 s after its last window');
  time.set(T0 + 2000 + 3001);
  assert.equal(series.settled(T0 + 2000), true, 'dp-b is stale; dp-a reported');
  time.set(T0 + 9000);
  series.tick();
  assert.equal(series.settled(T0 + 2000), true, 'sealed');
});

test('seconds roll up into their minute once its last second is sealed', () => {
  const time = clock(T0);
  const series = new ClusterSeries(time.now);
  const rollups: [string, number, number][] = [];
  series.onRollup((resolution, interval) => rollups.push([resolution, interval.start, interval.total.requests]));
  for (let s = 0; s < 61; s += 1) {
    time.set(T0 + s * 1000 + 1000);
    series.ingest(windowOf('dp-a', T0 + s * 1000, { r: [s + 1] }));
    series.ingest(windowOf('dp-b', T0 + s * 1000, { r: [s + 1, s + 1] }));
    series.tick();
  }
  assert.deepEqual(series.minutes(T0, T0 + 120_000), [], 'the minute is still open: its last seconds are not sealed');
  time.set(T0 + 65_000);
  series.tick();
  const [minute] = series.minutes(T0, T0 + 120_000);
  assert.deepEqual([minute.start, minute.durationMs, minute.reporting, minute.total.requests, minute.routes[0].bytesOut], [T0, 60_000, 2, 180, 18_000]);
  // 180 latencies: 1..60 ms three times each; p50 is 30 or 31 ms within 1 %.
  assert.ok(Math.abs(minute.routes[0].latency.p50 - 30.5) <= 0.31 + 0.5);
  assert.equal(minute.routes[0].latency.meanMs, 30.5);
  assert.equal(series.seconds(T0, T0 + 120_000).length, 60, 'the next minute has its first second still open');
  assert.deepEqual(rollups, [['minute', T0, 180]], 'the minute goes to the archive; its hour is not over');
  const restored = new ClusterSeries(time.now);
  restored.restoreMinutes(series.minutes(T0, T0 + 60_000));
  assert.deepEqual(restored.minutes(T0, T0 + 60_000), series.minutes(T0, T0 + 60_000));
});

test('minutes roll up into their hour once its last minute is sealed, for the archive', () => {
  const H0 = Math.floor(T0 / 3_600_000) * 3_600_000;
  const time = clock(H0);
  const series = new ClusterSeries(time.now);
  const rollups: [string, number, number][] = [];
  series.onRollup((resolution, interval) => rollups.push([resolution, interval.start, interval.total.requests]));
  for (let s = 0; s < 3600; s += 10) {
    time.set(H0 + s * 1000 + 1000);
    series.ingest(windowOf('dp-a', H0 + s * 1000, { r: [5] }));
    series.tick();
  }
  time.set(H0 + 3_606_000);
  series.tick();
  const minutes = rollups.filter(([resolution]) => resolution === 'minute');
  assert.equal(minutes.length, 60);
  assert.ok(minutes.every(([, , requests]) => requests === 6));
  assert.deepEqual(rollups.at(-1), ['hour', H0, 360]);
});
