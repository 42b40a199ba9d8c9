import { bucketOf, SeriesFamily } from './series-family';

/** Where one route's requests of one method, status and pattern are counted: a slot in each family. */
interface ObservedSeries {
  readonly method: string;
  readonly status: number;
  readonly routePattern: string;
  readonly patternSlot: number;
  readonly idSlot: number;
}

/**
 * Where request observations accumulate on the hot path: one map lookup, a short scan and a few
 * additions, instead of prom-client's label hashing for every series touched. Each observation
 * counts in two families (decision 18): by path pattern (http_*) and by route id (gateway_*).
 * Two route ids with one pattern share an http_* series; a route id whose pattern changed on a
 * reload keeps its gateway_* series. Series are created at a route's first request and never
 * dropped, so counters stay monotonic across reloads; cardinality is bounded by
 * routes x methods x statuses (docs/data-plane.md, "/metrics cardinality").
 */
export class RequestSeriesStore {
  readonly byPattern = new SeriesFamily();
  readonly byId = new SeriesFamily();
  /** routeId -> its method/status/pattern combinations seen (a handful each): no key string per request. */
  private readonly byRoute = new Map<string, ObservedSeries[]>();

  observe(routeId: string, routePattern: string, method: string, status: number, durationMs: number): void {
    const seen = this.byRoute.get(routeId);
    let series: ObservedSeries | undefined;
    if (seen !== undefined) {
      for (let i = 0; i < seen.length; i += 1) {
        const s = seen[i] as ObservedSeries;
        if (s.status === status && s.method === method && s.routePattern === routePattern) {
          series = s;
          break;
        }
      }
    }
    if (series === undefined) {
      series = this.create(routeId, routePattern, method, status, seen);
      // A one-element literal: an empty array that is pushed to reserves room for 17.
      if (seen === undefined) this.byRoute.set(routeId, [series]);
      else seen.push(series);
    }
    const bucket = bucketOf(durationMs);
    this.byPattern.record(series.patternSlot, durationMs, bucket);
    this.byId.record(series.idSlot, durationMs, bucket);
  }

  private create(routeId: string, routePattern: string, method: string, status: number, seen: readonly ObservedSeries[] | undefined): ObservedSeries {
    const methodLabel = `method="${escapeLabel(method)}"`;
    const statusLabel = `status="${status}"`;
    // The same method and status under the route's earlier pattern (a reload changed it): the
    // gateway_* series counts on; only the http_* one is new. So route ids need no index of their own.
    const earlier = seen?.find((s) => s.status === status && s.method === method);
    return {
      method,
      status,
      routePattern,
      // Label order as prom-client wrote these series before (tests and dashboards match on it).
      patternSlot: this.byPattern.slotFor(`${methodLabel},route="${escapeLabel(routePattern)}",${statusLabel}`),
      idSlot: earlier?.idSlot ?? this.byId.add(`route="${escapeLabel(routeId)}",${methodLabel},${statusLabel}`),
    };
  }
}

/** The text format's label escaping (backslash, newline, double quote), skipped for the usual plain value. */
export function escapeLabel(value: string): string {
  return /[\\\n"]/.test(value) ? value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"') : value;
}
