/** Spec 4.2: milliseconds for http_request_duration_ms. */
export const DURATION_BUCKETS_MS: readonly number[] = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];

/** Counts and duration buckets of one route/method/status combination. */
export class RequestSeries {
  count = 0;
  sumMs = 0;
  /** Per-bucket (not cumulative) counts; the last slot is +Inf. */
  readonly buckets = new Float64Array(DURATION_BUCKETS_MS.length + 1);

  constructor(
    readonly routeId: string,
    readonly routePattern: string,
    readonly method: string,
    readonly status: string,
  ) {}
}

/**
 * Where request observations accumulate on the hot path: one map lookup and a few additions,
 * instead of prom-client's label hashing for every series touched. Series are never dropped, so
 * counters stay monotonic across reloads; cardinality is bounded by routes x methods x statuses.
 */
export class RequestSeriesStore {
  /** routeId -> status -> method -> series: lookups without building a key string per request. */
  private readonly byRoute = new Map<string, Map<number, Map<string, RequestSeries>>>();
  private readonly series: RequestSeries[] = [];
  /** Every series by its four labels: a route's first request must not scan 10,000 others. */
  private readonly seriesByLabels = new Map<string, RequestSeries>();

  observe(routeId: string, routePattern: string, method: string, status: number, durationMs: number): void {
    let byStatus = this.byRoute.get(routeId);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.byRoute.set(routeId, byStatus);
    }
    let byMethod = byStatus.get(status);
    if (byMethod === undefined) {
      byMethod = new Map();
      byStatus.set(status, byMethod);
    }
    let series = byMethod.get(method);
    // A reload can give a route id another pattern: that is another http_* series.
    if (series === undefined || series.routePattern !== routePattern) {
      series = this.seriesFor(routeId, routePattern, method, String(status));
      byMethod.set(method, series);
    }
    series.count += 1;
    series.sumMs += durationMs;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS_MS.length && durationMs > (DURATION_BUCKETS_MS[bucket] as number)) bucket += 1;
    series.buckets[bucket] = (series.buckets[bucket] as number) + 1;
  }

  private seriesFor(routeId: string, routePattern: string, method: string, status: string): RequestSeries {
    const key = `${routeId}\u0000${routePattern}\u0000${method}\u0000${status}`;
    let series = this.seriesByLabels.get(key);
    if (series === undefined) {
      series = new RequestSeries(routeId, routePattern, method, status);
      this.series.push(series);
      this.seriesByLabels.set(key, series);
    }
    return series;
  }

  /** Series merged by a label key (the same pattern under two ids over time is one http_* series). */
  grouped(keyOf: (s: RequestSeries) => string): RequestSeries[] {
    const merged = new Map<string, RequestSeries>();
    for (const s of this.series) {
      const key = keyOf(s);
      let target = merged.get(key);
      if (target === undefined) {
        target = new RequestSeries(s.routeId, s.routePattern, s.method, s.status);
        merged.set(key, target);
      }
      target.count += s.count;
      target.sumMs += s.sumMs;
      for (let i = 0; i < s.buckets.length; i += 1) target.buckets[i] = (target.buckets[i] as number) + (s.buckets[i] as number);
    }
    return [...merged.values()];
  }
}
