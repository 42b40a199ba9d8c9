import type { RequestObservation } from '../engine/ports';

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
  private readonly series = new Map<string, RequestSeries>();

  observe(o: RequestObservation): void {
    const key = `${o.routeId}\u0000${o.routePattern}\u0000${o.method}\u0000${o.status}`;
    let series = this.series.get(key);
    if (series === undefined) {
      series = new RequestSeries(o.routeId, o.routePattern, o.method, String(o.status));
      this.series.set(key, series);
    }
    series.count += 1;
    series.sumMs += o.durationMs;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS_MS.length && o.durationMs > (DURATION_BUCKETS_MS[bucket] as number)) bucket += 1;
    (series.buckets as Float64Array)[bucket] = ((series.buckets as Float64Array)[bucket] as number) + 1;
  }

  /** Series merged by a label key (the same pattern under two ids over time is one http_* series). */
  grouped(keyOf: (s: RequestSeries) => string): RequestSeries[] {
    const merged = new Map<string, RequestSeries>();
    for (const s of this.series.values()) {
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
