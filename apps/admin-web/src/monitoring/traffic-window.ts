import type { BreakerState, ClusterSecond, HealthIndicator, TrafficSecond } from '../api/api-types';

// Indexes into TrafficSecond.outcomes (REQUEST_OUTCOMES of @gateway/events).
const RATE_LIMITED = 1;
const CACHE_HIT = 4;

export interface WindowNumbers {
  requests: number;
  rps: number;
  clientErrorPercent: number;
  serverErrorPercent: number;
  /** The highest per-second p99 of the window: per-second quantiles do not merge exactly. */
  worstP99: number;
  rateLimitHits: number;
  cacheHitRatio: number;
}

export interface RouteWindow extends WindowNumbers {
  routeId: string;
  breaker: BreakerState | null;
  health: HealthIndicator | null;
}

interface Tally {
  requests: number;
  clientErrors: number;
  serverErrors: number;
  worstP99: number;
  rateLimitHits: number;
  cacheHits: number;
}

const emptyTally = (): Tally => ({ requests: 0, clientErrors: 0, serverErrors: 0, worstP99: 0, rateLimitHits: 0, cacheHits: 0 });

function add(tally: Tally, traffic: TrafficSecond): void {
  tally.requests += traffic.requests;
  tally.clientErrors += traffic.statusClasses[2];
  tally.serverErrors += traffic.statusClasses[3];
  tally.rateLimitHits += traffic.outcomes[RATE_LIMITED];
  tally.cacheHits += traffic.outcomes[CACHE_HIT];
  if (traffic.requests > 0) tally.worstP99 = Math.max(tally.worstP99, traffic.latency.p99);
}

const percent = (part: number, whole: number): number => (whole === 0 ? 0 : (100 * part) / whole);

function numbers(tally: Tally, seconds: number): WindowNumbers {
  return {
    requests: tally.requests,
    rps: seconds === 0 ? 0 : tally.requests / seconds,
    clientErrorPercent: percent(tally.clientErrors, tally.requests),
    serverErrorPercent: percent(tally.serverErrors, tally.requests),
    worstP99: tally.worstP99,
    rateLimitHits: tally.rateLimitHits,
    cacheHitRatio: tally.requests === 0 ? 0 : tally.cacheHits / tally.requests,
  };
}

/** The cluster over the given frames (each one second). */
export function clusterWindow(frames: readonly ClusterSecond[]): WindowNumbers {
  const tally = emptyTally();
  for (const frame of frames) add(tally, frame.total);
  return numbers(tally, frames.length);
}

/** One row per route with traffic in the frames, by route id; breaker and health as of the latest frame that had them. */
export function routeWindows(frames: readonly ClusterSecond[]): RouteWindow[] {
  const tallies = new Map<string, Tally & { breaker: BreakerState | null; health: HealthIndicator | null }>();
  for (const frame of frames) {
    for (const route of frame.routes) {
      let tally = tallies.get(route.routeId);
      if (tally === undefined) tallies.set(route.routeId, (tally = { ...emptyTally(), breaker: null, health: null }));
      add(tally, route);
      if (route.breaker !== undefined) tally.breaker = route.breaker;
      if (route.health !== undefined) tally.health = route.health;
    }
  }
  return [...tallies]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([routeId, tally]) => ({ routeId, ...numbers(tally, frames.length), breaker: tally.breaker, health: tally.health }));
}
