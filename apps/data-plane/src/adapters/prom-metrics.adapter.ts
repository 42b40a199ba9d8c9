import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { GatewayMetrics, RequestObservation } from '../engine/ports';

/** Spec 4.2: milliseconds for http_request_duration_ms. */
const HTTP_DURATION_BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];
/** The same boundaries in seconds, so the two histograms agree. */
const GATEWAY_DURATION_BUCKETS_S = HTTP_DURATION_BUCKETS_MS.map((ms) => ms / 1000);

interface RequestSeries {
  httpCount: { inc(): void };
  httpDuration: { observe(value: number): void };
  gatewayCount: { inc(): void };
  gatewayDuration: { observe(value: number): void };
}

/**
 * prom-client behind the engine's metrics port. Labelled children are cached per
 * route/method/status so the hot path does a map lookup instead of prom-client's label hashing.
 */
export class PromMetrics implements GatewayMetrics {
  readonly registry = new Registry();
  private readonly series = new Map<string, RequestSeries>();
  private readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests handled, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'http_request_duration_ms',
    help: 'HTTP request duration in milliseconds, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_DURATION_BUCKETS_MS,
    registers: [this.registry],
  });
  private readonly gatewayRequests = new Counter({
    name: 'gateway_requests_total',
    help: 'Requests through the gateway, by route id, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  private readonly gatewayDuration = new Histogram({
    name: 'gateway_request_duration_seconds',
    help: 'Request duration through the gateway in seconds, by route id, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: GATEWAY_DURATION_BUCKETS_S,
    registers: [this.registry],
  });
  private readonly rateLimitHits = new Counter({
    name: 'gateway_rate_limit_hits_total',
    help: 'Requests rejected by a route rate limit, by route id',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  private readonly reloads = new Counter({
    name: 'gateway_config_reloads_total',
    help: 'Configuration reloads, by result',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly routeCount = new Gauge({
    name: 'gateway_routes',
    help: 'Enabled routes in the active route table',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Both results exist from the start so a scraper can alert on increase() without a gap.
    this.reloads.labels('success').inc(0);
    this.reloads.labels('failure').inc(0);
  }

  observeRequest(o: RequestObservation): void {
    const key = `${o.routeId}\u0000${o.method}\u0000${o.status}`;
    let series = this.series.get(key);
    if (series === undefined) {
      const status = String(o.status);
      series = {
        httpCount: this.httpRequests.labels(o.method, o.routePattern, status),
        httpDuration: this.httpDuration.labels(o.method, o.routePattern, status),
        gatewayCount: this.gatewayRequests.labels(o.routeId, o.method, status),
        gatewayDuration: this.gatewayDuration.labels(o.routeId, o.method, status),
      };
      this.series.set(key, series);
    }
    series.httpCount.inc();
    series.httpDuration.observe(o.durationMs);
    series.gatewayCount.inc();
    series.gatewayDuration.observe(o.durationMs / 1000);
  }

  rateLimitHit(routeId: string): void {
    this.rateLimitHits.labels(routeId).inc();
  }

  configReload(result: 'success' | 'failure'): void {
    this.reloads.labels(result).inc();
  }

  setRouteCount(count: number): void {
    this.routeCount.set(count);
    // A route's pattern can change under the same id: drop cached children on reload.
    this.series.clear();
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
