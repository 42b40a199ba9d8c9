import type { Metric } from 'prom-client';
import { DURATION_BUCKETS_MS, type RequestSeries, type RequestSeriesStore } from './request-series';

type Labels = Record<string, string | number>;
interface MetricValue {
  value: number;
  labels: Labels;
  metricName?: string;
}

/**
 * A read-only prom-client metric whose values are computed from the series store at scrape time.
 * prom-client's registry only calls `get()` (and `reset()`) on what it holds.
 */
function view(name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue[]): Metric {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
    reset: () => undefined,
  };
  return metric as unknown as Metric;
}

function counterValues(series: RequestSeries[], labelsOf: (s: RequestSeries) => Labels): MetricValue[] {
  return series.map((s) => ({ value: s.count, labels: labelsOf(s) }));
}

function histogramValues(name: string, series: RequestSeries[], labelsOf: (s: RequestSeries) => Labels, scale: number): MetricValue[] {
  const values: MetricValue[] = [];
  for (const s of series) {
    const labels = labelsOf(s);
    let cumulative = 0;
    for (let i = 0; i < s.buckets.length; i += 1) {
      cumulative += s.buckets[i] as number;
      const le = i < DURATION_BUCKETS_MS.length ? (DURATION_BUCKETS_MS[i] as number) * scale : '+Inf';
      values.push({ metricName: `${name}_bucket`, labels: { le, ...labels }, value: cumulative });
    }
    values.push({ metricName: `${name}_sum`, labels, value: s.sumMs * scale });
    values.push({ metricName: `${name}_count`, labels, value: s.count });
  }
  return values;
}

const byPattern = (s: RequestSeries): string => `${s.method}\u0000${s.routePattern}\u0000${s.status}`;
const patternLabels = (s: RequestSeries): Labels => ({ method: s.method, route: s.routePattern, status: s.status });
const byId = (s: RequestSeries): string => `${s.routeId}\u0000${s.method}\u0000${s.status}`;
const idLabels = (s: RequestSeries): Labels => ({ route: s.routeId, method: s.method, status: s.status });

/** The four request metrics of spec 4.2 (decision 18: path patterns on http_*, route ids on gateway_*). */
export function requestMetricViews(store: RequestSeriesStore): Metric[] {
  return [
    view('http_requests_total', 'HTTP requests handled, by method, route pattern and status', 'counter', () =>
      counterValues(store.grouped(byPattern), patternLabels),
    ),
    view('http_request_duration_ms', 'HTTP request duration in milliseconds, by method, route pattern and status', 'histogram', () =>
      histogramValues('http_request_duration_ms', store.grouped(byPattern), patternLabels, 1),
    ),
    view('gateway_requests_total', 'Requests through the gateway, by route id, method and status', 'counter', () =>
      counterValues(store.grouped(byId), idLabels),
    ),
    view('gateway_request_duration_seconds', 'Request duration through the gateway in seconds, by route id, method and status', 'histogram', () =>
      histogramValues('gateway_request_duration_seconds', store.grouped(byId), idLabels, 1 / 1000),
    ),
  ];
}
