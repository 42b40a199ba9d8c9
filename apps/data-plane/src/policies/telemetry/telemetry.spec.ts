import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  InProcessBus,
  LatencySketch,
  parseTelemetryWindow,
  REQUEST_OUTCOMES,
  TELEMETRY_CHANNEL,
  type RouteSnapshot,
  type RouteWindow,
  type TelemetryWindow,
  type TrafficCounts,
} from '@gateway/events';
import { makeTempDir, refusedPort, request, startUpstream, type LoopbackUpstream } from '@gateway/testing';
import type { RunningDataPlane } from '../../data-plane-options';
import { apiRoute as route, startFollower } from '../../testing/follower.fixture';

/** Sums the windows' counts of one route or upstream (traffic may straddle a second boundary). */
function sum(entries: (TrafficCounts & { topKeys?: RouteWindow['topKeys'] })[]): TrafficCounts & { latencyCount: number; keys: Map<string, [number, number]> } {
  const total = {
    requests: 0,
    statusClasses: [0, 0, 0, 0] as TrafficCounts['statusClasses'],
    outcomes: [0, 0, 0, 0, 0, 0, 0] as TrafficCounts['outcomes'],
    retries: 0,
    bytesIn: 0,
    bytesOut: 0,
    latency: { count: 0, sumMs: 0, zero: 0, buckets: [] },
    latencyCount: 0,
    keys: new Map<string, [number, number]>(),
  };
  const sketch = new LatencySketch();
  for (const e of entries) {
    total.requests += e.requests;
    e.statusClasses.forEach((n, i) => (total.statusClasses[i] += n));
    e.outcomes.forEach((n, i) => (total.outcomes[i] += n));
    total.retries += e.retries;
    total.bytesIn += e.bytesIn;
    total.bytesOut += e.bytesOut;
    sketch.addWire(e.latency);
    for (const k of e.topKeys ?? []) {
      const seen = total.keys.get(k.key) ?? [0, 0];
      total.keys.set(k.key, [seen[0] + k.count, seen[1] + k.rejections]);
    }
  }
  total.latencyCount = sketch.count;
  return total;
}

function outcomes(named: Partial<Record<(typeof REQUEST_OUTCOMES)[number], number>>): TrafficCounts['outcomes'] {
  return REQUEST_OUTCOMES.map((o) => named[o] ?? 0) as TrafficCounts['outcomes'];
}

/*
 * A real data plane following a control plane over the in-process bus, real upstreams on loopback:
 * known traffic must come back in its telemetry windows with exact counts (the test reads the
 * bus as the control plane does, through parseTelemetryWindow).
 */
describe('telemetry windows of a data plane', () => {
  const bus = new InProcessBus();
  const dir = makeTempDir('telemetry-');
  const windows: TelemetryWindow[] = [];
  let upstream: LoopbackUpstream;
  let plane: RunningDataPlane;
  const get = (p: string) => request(`http://127.0.0.1:${plane.port}${p}`);

  const until = async (what: string, done: () => boolean): Promise<void> => {
    const end = Date.now() + 5000;
    while (!done()) {
      if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const routeWindows = (id: string) => windows.flatMap((w) => w.routes.filter((r) => r.routeId === id));

  before(async () => {
    upstream = await startUpstream({
      handler: (req, res) => {
        res.statusCode = req.url?.includes('missing') ? 404 : req.url?.includes('moved') ? 302 : 200;
        res.end('x'.repeat(100));
      },
    });
    const down = `http://127.0.0.1:${await refusedPort()}`;
    const snapshot: RouteSnapshot = {
      version: 3,
      createdAt: new Date().toISOString(),
      upstreams: [],
      routes: [
        route({ id: 'ok', path: '/ok/*', upstream: upstream.origin }),
        route({ id: 'rl', path: '/rl/*', upstream: upstream.origin, rateLimit: { enabled: true, max: 2, windowMs: 600000 } }),
        route({ id: 'cached', path: '/cached/*', upstream: upstream.origin, cache: { enabled: true, ttl: 60000 } }),
        route({ id: 'down', path: '/down/*', upstream: down }),
        route({ id: 'idle', path: '/idle/*', upstream: upstream.origin }),
      ],
    };
    await bus.subscribe<unknown>(TELEMETRY_CHANNEL, (m) => windows.push(parseTelemetryWindow(m)));
    plane = await startFollower({ bus, snapshot, dataDir: dir.path, instanceId: 'dp-telemetry' });
  });

  after(async () => {
    await plane?.close();
    await upstream?.close();
    await bus.close();
    dir.remove();
  });

  test('counts requests by status class and outcome, bytes, latencies and rate-limit keys, exactly', async () => {
    for (let i = 0; i < 3; i += 1) await get('/ok/a');
    await get('/ok/missing');
    await get('/ok/moved');
    for (let i = 0; i < 5; i += 1) await get('/rl/a');
    for (let i = 0; i < 3; i += 1) await get('/cached/a');
    await get('/down/a');
    await until('every request in a window', () => ['ok', 'rl', 'cached', 'down'].every((id) => sum(routeWindows(id)).requests >= { ok: 5, rl: 5, cached: 3, down: 1 }[id]!));

    const ok = sum(routeWindows('ok'));
    assert.deepEqual([ok.requests, ok.statusClasses, ok.outcomes, ok.retries, ok.latencyCount], [5, [3, 1, 1, 0], outcomes({ proxied: 5 }), 0, 5]);
    assert.ok(ok.bytesOut > 5 * 100, 'bodies and heads written to the client');
    assert.ok(ok.bytesIn > 0, 'request heads read from the client');

    const rl = sum(routeWindows('rl'));
    assert.deepEqual([rl.requests, rl.statusClasses, rl.outcomes], [5, [2, 0, 3, 0], outcomes({ proxied: 2, rate_limited: 3 })]);
    assert.deepEqual([...rl.keys], [['ip:127.0.0.1', [5, 3]]], 'the limiter key, never a credential');

    const cached = sum(routeWindows('cached'));
    assert.deepEqual([cached.requests, cached.statusClasses, cached.outcomes], [3, [3, 0, 0, 0], outcomes({ proxied: 1, cache_hit: 2 })]);

    const down = sum(routeWindows('down'));
    assert.deepEqual([down.requests, down.statusClasses, down.outcomes], [1, [0, 0, 0, 1], outcomes({ upstream_error: 1 })]);

    assert.deepEqual(routeWindows('idle'), [], 'a route without traffic is not listed');
    for (const w of windows) assert.ok(w.routes.every((r) => r.requests > 0), 'only routes with traffic');

    const byOrigin = sum(windows.flatMap((w) => w.upstreams.filter((u) => u.upstream === upstream.origin)));
    assert.equal(byOrigin.requests, 13, 'ok, rl and cached share the upstream');
    assert.deepEqual(byOrigin.outcomes, outcomes({ proxied: 8, rate_limited: 3, cache_hit: 2 }));
  });

  test('each window names its data plane, its second and the process gauges', () => {
    const last = windows.at(-1)!;
    assert.equal(last.instanceId, 'dp-telemetry');
    assert.equal(last.address, `127.0.0.1:${plane.port}`);
    assert.equal(last.configRevision, 3);
    assert.equal(last.durationMs, 1000);
    assert.equal(last.start % 1000, 0);
    assert.equal(last.droppedWindows, 0);
    assert.ok(last.process.heapUsedBytes > 0 && last.process.rssBytes >= last.process.heapUsedBytes);
    const starts = windows.map((w) => w.start);
    assert.deepEqual(starts, [...new Set(starts)].sort((a, b) => a - b), 'one window a second, in order');
  });
});
