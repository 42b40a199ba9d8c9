import { REQUEST_OUTCOMES, wireQuantiles, type BreakerState, type HealthIndicator, type TrafficSummary } from '@gateway/events';
import type { ClusterSeries } from './cluster-series';

const RATE_LIMITED = REQUEST_OUTCOMES.indexOf('rate_limited');
const CACHE_HIT = REQUEST_OUTCOMES.indexOf('cache_hit');
const QUANTILES = [0.5, 0.95, 0.99] as const;

/** One row of GET /api/monitoring/summary. */
export interface TrafficOverview {
  requests: number;
  /** Requests a second over the window. */
  rps: number;
  /** 5xx answers, % of requests. */
  errorPercent: number;
  p50: number;
  p95: number;
  p99: number;
  rateLimitHits: number;
  /** Cache hits / requests, 0..1. */
  cacheHitRatio: number;
}

export interface RouteOverview extends TrafficOverview {
  routeId: string;
  /** As of the latest second with traffic; null when the route has no breaker or check. */
  breaker: BreakerState | null;
  health: HealthIndicator | null;
}

export interface MonitoringSummary {
  /** ISO 8601 bounds of the counted seconds. */
  from: string;
  to: string;
  windowSeconds: number;
  /** Data planes whose window of the latest second was merged. */
  reporting: number;
  total: TrafficOverview;
  routes: RouteOverview[];
}

interface Tally {
  requests: number;
  errors: number;
  rateLimitHits: number;
  cacheHits: number;
  breaker: BreakerState | null;
  health: HealthIndicator | null;
}

function count(tally: Tally, traffic: TrafficSummary & { breaker?: BreakerState; health?: HealthIndicator }): void {
  tally.requests += traffic.requests;
  tally.errors += traffic.statusClasses[3];
  tally.rateLimitHits += traffic.outcomes[RATE_LIMITED];
  tally.cacheHits += traffic.outcomes[CACHE_HIT];
  // Seconds come oldest first: the last one with a state wins.
  if (traffic.breaker !== undefined) tally.breaker = traffic.breaker;
  if (traffic.health !== undefined) tally.health = traffic.health;
}

function overview(tally: Tally, windowSeconds: number, quantiles: number[]): TrafficOverview {
  const round = (n: number, digits: number): number => Math.round(n * 10 ** digits) / 10 ** digits;
  return {
    requests: tally.requests,
    rps: round(tally.requests / windowSeconds, 3),
    errorPercent: tally.requests === 0 ? 0 : round((100 * tally.errors) / tally.requests, 3),
    p50: round(quantiles[0], 3),
    p95: round(quantiles[1], 3),
    p99: round(quantiles[2], 3),
    rateLimitHits: tally.rateLimitHits,
    cacheHitRatio: tally.requests === 0 ? 0 : round(tally.cacheHits / tally.requests, 4),
  };
}

/**
 * The cluster over the last `windowMs` (at most 15 minutes, the reach of the 1-second series): counts
 * from every second in the window, sealed or still open; quantiles from the merged sketches of the
 * minutes that overlap it (so over up to one minute more).
 */
export function summarize(series: ClusterSeries, windowMs: number, now: number): MonitoringSummary {
  const to = Math.floor(now / 1000) * 1000 + 1000;
  const from = to - windowMs;
  const seconds = [...series.seconds(from, to), ...series.openSeconds().filter((s) => s.start >= from)];
  const fresh = (): Tally => ({ requests: 0, errors: 0, rateLimitHits: 0, cacheHits: 0, breaker: null, health: null });
  const total = fresh();
  const routes = new Map<string, Tally>();
  for (const second of seconds) {
    count(total, second.total);
    for (const route of second.routes) {
      let tally = routes.get(route.routeId);
      if (tally === undefined) routes.set(route.routeId, (tally = fresh()));
      count(tally, route);
    }
  }
  const sketches = series.latencySince(from);
  const quantilesOf = (wire: typeof sketches.total): number[] => (wire === undefined || wire.count === 0 ? [0, 0, 0] : wireQuantiles(wire, QUANTILES));
  const windowSeconds = windowMs / 1000;
  return {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    windowSeconds,
    reporting: seconds.at(-1)?.reporting ?? 0,
    total: overview(total, windowSeconds, quantilesOf(sketches.total)),
    routes: [...routes]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([routeId, tally]) => ({ routeId, ...overview(tally, windowSeconds, quantilesOf(sketches.routes.get(routeId))), breaker: tally.breaker, health: tally.health })),
  };
}
