import type { ClusterSecond, TelemetryWindow } from '@gateway/events';
import { TrafficSum, type TrafficEntry } from './traffic-sum';

/**
 * The cluster's traffic over one interval: a second (the windows of every data plane that reported
 * it) or a minute (its sealed seconds), per route, per upstream and in total.
 */
export class TrafficAggregate {
  readonly total = new TrafficSum();
  readonly routes = new Map<string, TrafficSum>();
  readonly upstreams = new Map<string, TrafficSum>();
  /** Data planes merged into a second; for a minute, the most that reported any of its seconds. */
  reporting = 0;

  constructor(
    readonly start: number,
    readonly durationMs: number,
  ) {}

  addWindow(window: TelemetryWindow): void {
    this.reporting += 1;
    for (const route of window.routes) {
      sumOf(this.routes, route.routeId).add(route);
      this.total.add(route);
    }
    for (const upstream of window.upstreams) sumOf(this.upstreams, upstream.upstream).add(upstream);
  }

  /** Rolls a sealed shorter interval into this one. */
  addAggregate(other: TrafficAggregate): void {
    this.reporting = Math.max(this.reporting, other.reporting);
    this.total.add(other.total);
    for (const [id, sum] of other.routes) sumOf(this.routes, id).add(withoutKeys(sum));
    for (const [name, sum] of other.upstreams) sumOf(this.upstreams, name).add(sum);
  }

  toClusterSecond(): ClusterSecond {
    return {
      start: this.start,
      durationMs: this.durationMs,
      reporting: this.reporting,
      total: this.total.summary(),
      routes: [...this.routes].map(([routeId, sum]) => {
        const topKeys = sum.topKeys;
        return { routeId, ...sum.summary(), ...resilience(sum), ...(topKeys === undefined ? {} : { topKeys }) };
      }),
      upstreams: [...this.upstreams].map(([upstream, sum]) => ({ upstream, ...sum.summary(), ...resilience(sum) })),
    };
  }
}

function sumOf(sums: Map<string, TrafficSum>, key: string): TrafficSum {
  let sum = sums.get(key);
  if (sum === undefined) {
    sum = new TrafficSum();
    sums.set(key, sum);
  }
  return sum;
}

/** A minute keeps no top keys: they are a per-second view (the detectors' and the stream's). */
function withoutKeys(sum: TrafficSum): TrafficEntry {
  return { requests: sum.requests, statusClasses: sum.statusClasses, outcomes: sum.outcomes, retries: sum.retries, bytesIn: sum.bytesIn, bytesOut: sum.bytesOut, latency: sum.latency, breaker: sum.breaker, health: sum.health };
}

function resilience(sum: TrafficSum): Pick<TrafficEntry, 'breaker' | 'health'> {
  return { ...(sum.breaker === undefined ? {} : { breaker: sum.breaker }), ...(sum.health === undefined ? {} : { health: sum.health }) };
}
