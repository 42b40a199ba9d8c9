import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterSecond, RouteSecond } from '@gateway/events';
import { TickCollector } from './tick-collector';

function second(start: number, routes: Array<Partial<RouteSecond> & { routeId: string; requests: number; errors: number; p95: number }>): ClusterSecond {
  const traffic = (requests: number, errors: number, p95: number) => ({
    requests,
    statusClasses: [requests - errors, 0, 0, errors] as [number, number, number, number],
    outcomes: [requests, 0, 0, 0, 0, 0, 0] as [number, number, number, number, number, number, number],
    retries: 0,
    bytesIn: 10 * requests,
    bytesOut: 100 * requests,
    latency: { p50: p95 / 2, p95, p99: p95 * 2, meanMs: p95 / 2 },
  });
  return {
    start,
    durationMs: 1000,
    reporting: 1,
    total: traffic(0, 0, 0),
    routes: routes.map((r) => ({ ...traffic(r.requests, r.errors, r.p95), routeId: r.routeId, ...(r.breaker === undefined ? {} : { breaker: r.breaker }), ...(r.topKeys === undefined ? {} : { topKeys: r.topKeys }) })),
    upstreams: [],
  };
}

test('seconds sum into ticks aligned to the interval: counts added, quantiles weighted by requests, worst breaker, clients summed', () => {
  const collector = new TickCollector(10_000);
  collector.add(second(20_000, [{ routeId: 'a', requests: 10, errors: 1, p95: 100, topKeys: [{ key: 'ip:1', count: 4, rejections: 0, error: 0 }] }]));
  collector.add(second(21_000, [{ routeId: 'a', requests: 30, errors: 3, p95: 200, breaker: 'OPEN', topKeys: [{ key: 'ip:1', count: 6, rejections: 0, error: 0 }] }]));
  collector.close(29_000, () => []);
  assert.deepEqual(collector.takeAfter(0), [], 'not closed before its last second is sealed');
  collector.close(30_000, () => [{ instanceId: 'cp', role: 'control-plane', rssBytes: 1, eventLoopLagMs: 1, openConnections: 0 }]);
  const [tick] = collector.takeAfter(0);
  assert.deepEqual(tick?.routes, [{ routeId: 'a', requests: 40, errors: 4, p95: (10 * 100 + 30 * 200) / 40, p99: (10 * 200 + 30 * 400) / 40, bytes: 4400, breaker: 'OPEN', clients: [{ id: 'ip:1', requests: 10 }] }]);
  assert.deepEqual([tick?.start, tick?.durationMs, tick?.processes.length], [20_000, 10_000, 1]);
});

test('ticks without traffic close too (incidents move towards recovery), and only those after the mark are taken', () => {
  const collector = new TickCollector(10_000);
  collector.add(second(0, [{ routeId: 'a', requests: 1, errors: 0, p95: 1 }]));
  collector.close(40_000, () => []);
  const ticks = collector.takeAfter(10_000);
  assert.deepEqual(ticks.map((t) => [t.start, t.routes.length]), [[10_000, 0], [20_000, 0], [30_000, 0]]);
  assert.deepEqual(collector.takeAfter(0), [], 'taken once');
});
