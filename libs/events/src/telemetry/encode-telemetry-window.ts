import type { LatencySketchWire, TelemetryWindow, TrafficCounts } from './telemetry-window.types';
import { TELEMETRY_WIRE_VERSION, WIRE_BREAKER_STATES, WIRE_HEALTH, type LatencyRuns, type TelemetryWire, type WireRow } from './telemetry-wire.types';
import type { BreakerState, HealthIndicator } from '../resilience-status.types';

/** Gap-pair buckets (`[gap, count, ...]`, the in-memory form) as runs: neighbours cost their count only. */
export function latencyRuns(buckets: readonly number[]): LatencyRuns {
  if (buckets.length === 0) return [];
  const runs: number[] = [buckets[0] as number];
  for (let i = 0; i < buckets.length; i += 2) {
    const gap = buckets[i] as number;
    if (i > 0 && gap > 1) runs.push(1 - gap);
    runs.push(buckets[i + 1] as number);
  }
  return runs;
}

function resilienceCode(breaker: BreakerState | undefined, health: HealthIndicator | undefined): number {
  const b = breaker === undefined ? 0 : WIRE_BREAKER_STATES.indexOf(breaker) + 1;
  const h = health === undefined ? 0 : WIRE_HEALTH.indexOf(health) + 1;
  return b + 4 * h;
}

/**
 * The bus message of a window (wire version 2): about a third of the JSON of the object form at
 * 1,000 busy routes (docs/telemetry.md). Runs once a window on the data plane, never per request.
 */
export function encodeTelemetryWindow(window: TelemetryWindow): TelemetryWire {
  const strings: string[] = [];
  const indexes = new Map<string, number>();
  const ref = (s: string): number => {
    let index = indexes.get(s);
    if (index === undefined) {
      index = strings.push(s) - 1;
      indexes.set(s, index);
    }
    return index;
  };
  const row = (name: string, t: TrafficCounts, breaker: BreakerState | undefined, health: HealthIndicator | undefined): WireRow => {
    const latency: LatencySketchWire = t.latency;
    return [
      ref(name),
      t.requests,
      ...t.statusClasses,
      ...t.outcomes,
      t.retries,
      t.bytesIn,
      t.bytesOut,
      Math.round(latency.sumMs * 1000),
      latency.zero,
      resilienceCode(breaker, health),
      latencyRuns(latency.buckets),
    ];
  };
  const routes = window.routes.map((route) => {
    const r = row(route.routeId, route, route.breaker, route.health);
    if (route.topKeys !== undefined) r.push(route.topKeys.flatMap((k) => [ref(k.key), k.count, k.rejections, k.error]));
    return r;
  });
  const upstreams = window.upstreams.map((upstream) => row(upstream.upstream, upstream, upstream.breaker, upstream.health));
  const p = window.process;
  return {
    v: TELEMETRY_WIRE_VERSION,
    i: window.instanceId,
    a: window.address,
    n: window.version,
    c: window.configRevision,
    s: window.start,
    d: window.durationMs,
    x: window.droppedWindows,
    p: [p.heapUsedBytes, p.rssBytes, p.eventLoopLagMs, p.openConnections],
    k: strings,
    r: routes,
    u: upstreams,
  };
}
