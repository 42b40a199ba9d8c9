import { DURATION_BUCKETS_MS, type RequestSeries, type RequestSeriesStore } from './request-series';

/**
 * The four request metrics of spec 4.2 (decision 18: path patterns on http_*, route ids on
 * gateway_*) written straight to the Prometheus text format, in prom-client's layout. At 10,000
 * routes with traffic these are ~260,000 lines (two histograms of 13 lines per route, method and
 * status): going through prom-client's value objects and label formatting took seconds a scrape,
 * plain string building takes tens of milliseconds (issue 19, docs/observability.md).
 */
export function requestMetricsText(store: RequestSeriesStore): string {
  const byPattern = store.grouped((s) => `${s.method}\u0000${s.routePattern}\u0000${s.status}`);
  const byId = store.grouped((s) => `${s.routeId}\u0000${s.method}\u0000${s.status}`);
  const patternLabels = byPattern.map((s) => `method="${escapeLabel(s.method)}",route="${escapeLabel(s.routePattern)}",status="${s.status}"`);
  const idLabels = byId.map((s) => `route="${escapeLabel(s.routeId)}",method="${escapeLabel(s.method)}",status="${s.status}"`);
  return [
    counter('http_requests_total', 'HTTP requests handled, by method, route pattern and status', byPattern, patternLabels),
    histogram('http_request_duration_ms', 'HTTP request duration in milliseconds, by method, route pattern and status', byPattern, patternLabels, 1),
    counter('gateway_requests_total', 'Requests through the gateway, by route id, method and status', byId, idLabels),
    histogram('gateway_request_duration_seconds', 'Request duration through the gateway in seconds, by route id, method and status', byId, idLabels, 1 / 1000),
  ].join('\n\n');
}

function header(name: string, help: string, type: 'counter' | 'histogram'): string {
  return `# HELP ${name} ${help}\n# TYPE ${name} ${type}`;
}

function counter(name: string, help: string, series: readonly RequestSeries[], labels: readonly string[]): string {
  const lines = [header(name, help, 'counter')];
  for (let i = 0; i < series.length; i += 1) lines.push(`${name}{${labels[i] as string}} ${(series[i] as RequestSeries).count}`);
  return lines.join('\n');
}

function histogram(name: string, help: string, series: readonly RequestSeries[], labels: readonly string[], scale: number): string {
  // `le` first, as prom-client writes it; the bucket bounds are built once per scrape, not per line.
  const bucketPrefixes = [...DURATION_BUCKETS_MS.map((bound) => `${name}_bucket{le="${bound * scale}",`), `${name}_bucket{le="+Inf",`];
  const lines = [header(name, help, 'histogram')];
  for (let i = 0; i < series.length; i += 1) {
    const s = series[i] as RequestSeries;
    const label = labels[i] as string;
    let cumulative = 0;
    for (let b = 0; b < s.buckets.length; b += 1) {
      cumulative += s.buckets[b] as number;
      lines.push(`${bucketPrefixes[b] as string}${label}} ${cumulative}`);
    }
    lines.push(`${name}_sum{${label}} ${s.sumMs * scale}`, `${name}_count{${label}} ${s.count}`);
  }
  return lines.join('\n');
}

/** The text format's label escaping (backslash, newline, double quote), skipped for the usual plain value. */
function escapeLabel(value: string): string {
  return /[\\\n"]/.test(value) ? value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"') : value;
}
