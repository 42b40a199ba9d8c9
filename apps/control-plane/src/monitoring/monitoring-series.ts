import { REQUEST_OUTCOMES, type ClusterSecond, type TrafficSummary } from '@gateway/events';
import type { ClusterSeries } from './cluster-series';

/** Metrics GET /api/monitoring/series can plot, each read from one interval's merged traffic. */
export const SERIES_METRICS = {
  requests: (t) => t.requests,
  errors: (t) => t.statusClasses[3],
  errorPercent: (t) => (t.requests === 0 ? 0 : (100 * t.statusClasses[3]) / t.requests),
  p50: (t) => t.latency.p50,
  p95: (t) => t.latency.p95,
  p99: (t) => t.latency.p99,
  meanMs: (t) => t.latency.meanMs,
  rateLimitHits: (t) => t.outcomes[REQUEST_OUTCOMES.indexOf('rate_limited')],
  cacheHits: (t) => t.outcomes[REQUEST_OUTCOMES.indexOf('cache_hit')],
  upstreamErrors: (t) => t.outcomes[REQUEST_OUTCOMES.indexOf('upstream_error')],
  timeouts: (t) => t.outcomes[REQUEST_OUTCOMES.indexOf('timeout')],
  retries: (t) => t.retries,
  bytesIn: (t) => t.bytesIn,
  bytesOut: (t) => t.bytesOut,
} satisfies Record<string, (traffic: TrafficSummary) => number>;
export type SeriesMetric = keyof typeof SERIES_METRICS;

/** Steps served: the two resolutions the series are kept at. */
export const SERIES_STEPS = { '1s': 1000, '1m': 60_000 } as const;
export type SeriesStep = keyof typeof SERIES_STEPS;

export interface SeriesQuery {
  /** A route id, or undefined for the cluster total. */
  route?: string;
  metric: SeriesMetric;
  from: number;
  to: number;
  step: SeriesStep;
}

export interface SeriesPoint {
  /** ISO 8601 start of the interval. */
  t: string;
  value: number;
}

/**
 * One metric of a route (or the total) at 1 s (the last 15 minutes, open seconds included) or 1 min
 * (the last 24 hours). Intervals without traffic are points of value 0, so a plot has no holes.
 */
export function seriesOf(series: ClusterSeries, query: SeriesQuery): SeriesPoint[] {
  const stepMs = SERIES_STEPS[query.step];
  const kept: ClusterSecond[] = query.step === '1s' ? [...series.seconds(query.from, query.to), ...series.openSeconds()] : series.minutes(query.from, query.to);
  const byStart = new Map(kept.map((interval) => [interval.start, interval]));
  const read = SERIES_METRICS[query.metric];
  const points: SeriesPoint[] = [];
  for (let start = Math.ceil(query.from / stepMs) * stepMs; start < query.to; start += stepMs) {
    const interval = byStart.get(start);
    const traffic = interval === undefined ? undefined : query.route === undefined ? interval.total : interval.routes.find((r) => r.routeId === query.route);
    points.push({ t: new Date(start).toISOString(), value: traffic === undefined ? 0 : Math.round(read(traffic) * 1000) / 1000 });
  }
  return points;
}
