import type { ClusterSecond, TrafficSummary } from '@gateway/events';
import type { ClusterSeries } from '../monitoring/cluster-series';

/** The figures of one route over a span: request rate, share of 5xx, and the worst p95/p99 of any interval in it. */
export interface MetricsFigures {
  requests: number;
  rps: number;
  errorPercent: number;
  /** The highest p95/p99 of the intervals in the span (quantiles of separate intervals do not add up). */
  p95Ms: number;
  p99Ms: number;
}

/** One route's excerpt: the whole window and at most MAX_SLICES equal slices of it (the trend). */
export interface RouteMetrics extends MetricsFigures {
  route: string;
  slices: Array<{ from: string } & MetricsFigures>;
}

export const MAX_METRIC_ROUTES = 10;
export const MAX_SLICES = 12;
const MINUTE_MS = 60_000;
/** How far back the series keeps seconds (cluster-series.ts). */
const SECONDS_REACH_MS = 15 * MINUTE_MS;

/**
 * The affected routes' traffic over [from, to) from this instance's merged series: seconds (sealed
 * and open, the last 15 minutes) where the series still has them, sealed minutes (the last 24
 * hours) before that. What the series no longer holds counts as no traffic, as on the monitoring
 * charts. Slices are whole seconds for a window within the seconds' reach, whole minutes beyond.
 */
export function metricsExcerpt(series: Pick<ClusterSeries, 'minutes' | 'seconds' | 'openSeconds'>, routes: readonly string[], from: number, to: number): RouteMetrics[] {
  const seconds = [...series.seconds(from, to), ...series.openSeconds().filter((s) => s.start >= from && s.start < to)];
  const secondsFrom = seconds[0]?.start ?? to;
  // Minutes wholly before the first second held; a minute the seconds overlap would count twice.
  const minutes = series.minutes(from, secondsFrom).filter((m) => m.start + MINUTE_MS <= secondsFrom);
  const intervals: ClusterSecond[] = [...minutes, ...seconds];
  const unit = to - from <= SECONDS_REACH_MS ? 1000 : MINUTE_MS;
  const sliceMs = Math.ceil((to - from) / MAX_SLICES / unit) * unit;
  return routes.slice(0, MAX_METRIC_ROUTES).map((route) => {
    const of = (start: number, end: number): MetricsFigures =>
      figures(
        intervals.filter((i) => i.start >= start && i.start < end).flatMap((i) => i.routes.filter((r) => r.routeId === route)),
        Math.min(end, to) - start,
      );
    const slices: RouteMetrics['slices'] = [];
    for (let start = from; start < to && slices.length < MAX_SLICES; start += sliceMs) slices.push({ from: new Date(start).toISOString(), ...of(start, start + sliceMs) });
    return { route, ...of(from, to), slices };
  });
}

function figures(entries: readonly TrafficSummary[], spanMs: number): MetricsFigures {
  let requests = 0;
  let errors = 0;
  let p95Ms = 0;
  let p99Ms = 0;
  for (const entry of entries) {
    requests += entry.requests;
    errors += entry.statusClasses[3];
    if (entry.requests > 0) {
      p95Ms = Math.max(p95Ms, entry.latency.p95);
      p99Ms = Math.max(p99Ms, entry.latency.p99);
    }
  }
  const round = (value: number): number => Math.round(value * 100) / 100;
  return { requests, rps: round(requests / Math.max(1, spanMs / 1000)), errorPercent: requests === 0 ? 0 : round((100 * errors) / requests), p95Ms: round(p95Ms), p99Ms: round(p99Ms) };
}
