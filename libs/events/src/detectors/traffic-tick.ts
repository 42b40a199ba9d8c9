import type { BreakerState } from '../resilience-status.types';
import type { ClusterSecond, TrafficSummary } from '../telemetry/telemetry-stream';

/*
 * What the detectors evaluate: the cluster's traffic over one evaluation interval (10 s by
 * default), summed from the sealed seconds of the TelemetryStream, plus the latest process gauges
 * of every data plane and control plane. Built in one place so every detector reads the same numbers.
 */

export interface TickClient {
  /** The rate limiter's scope key (`ip:...`, `key:<digest>`), never a credential. */
  id: string;
  requests: number;
}

export interface RouteTick {
  routeId: string;
  requests: number;
  /** Answered 5xx (by the upstream or the gateway). */
  errors: number;
  /** Request-weighted mean of the per-second quantiles, ms. */
  p95: number;
  p99: number;
  bytes: number;
  /** The worst state any data plane reported in the interval. */
  breaker?: BreakerState;
  /** Heaviest client keys (rate-limited routes only), summed over the interval. */
  clients: TickClient[];
}

export interface UpstreamTick {
  upstream: string;
  requests: number;
  failures: number;
  breaker?: BreakerState;
}

export interface ProcessTick {
  instanceId: string;
  role: 'data-plane' | 'control-plane';
  rssBytes: number;
  eventLoopLagMs: number;
  openConnections: number;
}

export interface TrafficTick {
  /** Epoch ms of the interval's start. */
  start: number;
  durationMs: number;
  routes: RouteTick[];
  upstreams: UpstreamTick[];
  processes: ProcessTick[];
}

const BREAKER_RANK: Record<BreakerState, number> = { CLOSED: 0, HALF_OPEN: 1, OPEN: 2 };
const MAX_CLIENTS = 20;

function worse(a: BreakerState | undefined, b: BreakerState | undefined): BreakerState | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return BREAKER_RANK[b] > BREAKER_RANK[a] ? b : a;
}

interface RouteSum {
  requests: number;
  errors: number;
  p95Sum: number;
  p99Sum: number;
  bytes: number;
  breaker?: BreakerState;
  clients: Map<string, number>;
}

/** Sums sealed seconds into one tick. Add seconds as they seal; `build` closes the interval. */
export class TickBuilder {
  private readonly routes = new Map<string, RouteSum>();
  private readonly upstreams = new Map<string, UpstreamTick>();

  constructor(
    readonly start: number,
    readonly durationMs: number,
  ) {}

  add(second: ClusterSecond): void {
    for (const route of second.routes) {
      const sum = this.routes.get(route.routeId) ?? { requests: 0, errors: 0, p95Sum: 0, p99Sum: 0, bytes: 0, clients: new Map<string, number>() };
      addTraffic(sum, route);
      sum.breaker = worse(sum.breaker, route.breaker);
      for (const key of route.topKeys ?? []) sum.clients.set(key.key, (sum.clients.get(key.key) ?? 0) + key.count);
      this.routes.set(route.routeId, sum);
    }
    for (const upstream of second.upstreams) {
      const tick = this.upstreams.get(upstream.upstream) ?? { upstream: upstream.upstream, requests: 0, failures: 0 };
      tick.requests += upstream.requests;
      tick.failures += upstream.statusClasses[3];
      tick.breaker = worse(tick.breaker, upstream.breaker);
      this.upstreams.set(upstream.upstream, tick);
    }
  }

  build(processes: ProcessTick[]): TrafficTick {
    const routes: RouteTick[] = [];
    for (const [routeId, sum] of this.routes) {
      const clients = [...sum.clients].map(([id, requests]) => ({ id, requests })).sort((a, b) => b.requests - a.requests).slice(0, MAX_CLIENTS);
      routes.push({
        routeId,
        requests: sum.requests,
        errors: sum.errors,
        p95: sum.requests > 0 ? sum.p95Sum / sum.requests : 0,
        p99: sum.requests > 0 ? sum.p99Sum / sum.requests : 0,
        bytes: sum.bytes,
        ...(sum.breaker === undefined ? {} : { breaker: sum.breaker }),
        clients,
      });
    }
    return { start: this.start, durationMs: this.durationMs, routes, upstreams: [...this.upstreams.values()], processes };
  }
}

function addTraffic(sum: RouteSum, traffic: TrafficSummary): void {
  sum.requests += traffic.requests;
  sum.errors += traffic.statusClasses[3];
  sum.p95Sum += traffic.latency.p95 * traffic.requests;
  sum.p99Sum += traffic.latency.p99 * traffic.requests;
  sum.bytes += traffic.bytesIn + traffic.bytesOut;
}
