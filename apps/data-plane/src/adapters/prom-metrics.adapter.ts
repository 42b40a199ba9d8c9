import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { BUS_DROPS_METRIC } from '@gateway/events';
import type { BreakerGaugeValue, GatewayMetrics } from '../engine/ports';
import { requestMetricViews } from './request-metric-views';
import { RequestSeriesStore } from './request-series';

const BREAKER_STATE_VALUES: Record<BreakerGaugeValue['state'], number> = { CLOSED: 0, HALF_OPEN: 1, OPEN: 2 };

/**
 * prom-client behind the engine's metrics port. Request observations go to a plain series store
 * (the hot path) and become prom-client metrics only when /metrics is scraped, as do breaker states
 * (read from their source); the rarer events (rate-limit hits, reloads) use prom-client directly.
 */
export class PromMetrics implements GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests = new RequestSeriesStore();
  private readonly rateLimitHits = new Counter({
    name: 'gateway_rate_limit_hits_total',
    help: 'Requests rejected by a route rate limit, by route id',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  private readonly configRevision = new Gauge({
    name: 'gateway_config_revision',
    help: "The control plane's configuration revision of the live route table (absent in proxy.yml-only mode)",
    registers: [this.registry],
  });
  private readBreakers: () => Iterable<BreakerGaugeValue> = () => [];
  private readonly breakerGauge: Gauge<'breaker' | 'kind'> = new Gauge({
    name: 'gateway_circuit_breaker_state',
    help: 'Circuit breaker state: 0 CLOSED, 1 HALF_OPEN, 2 OPEN; breaker is a route id (route:<id>) or an upstream name',
    labelNames: ['breaker', 'kind'] as const,
    registers: [this.registry],
    // Read at scrape time, so the gauge says what /health/deep says (and forgets removed breakers).
    collect: () => {
      this.breakerGauge.reset();
      for (const b of this.readBreakers()) this.breakerGauge.labels(b.name, b.kind).set(BREAKER_STATE_VALUES[b.state]);
    },
  });
  private readBusDrops: () => Readonly<Record<string, number>> = () => ({});
  private readonly busDrops: Counter<'reason'> = new Counter({
    ...BUS_DROPS_METRIC,
    labelNames: ['reason'] as const,
    registers: [this.registry],
    // Kept by the bus (SignedBus.dropCounts), read at scrape time; absent without a bus (proxy.yml mode).
    collect: () => {
      this.busDrops.reset();
      for (const [reason, count] of Object.entries(this.readBusDrops())) this.busDrops.labels(reason).inc(count);
    },
  });
  private readOpenWebSockets: () => ReadonlyMap<string, number> = () => new Map();
  private readonly openWebSocketGauge: Gauge<'route'> = new Gauge({
    name: 'gateway_websocket_connections',
    help: 'WebSocket connections relayed now, by route id',
    labelNames: ['route'] as const,
    registers: [this.registry],
    // Counted by the data plane's connection registry, read at scrape time (closed routes drop out).
    collect: () => {
      this.openWebSocketGauge.reset();
      for (const [routeId, count] of this.readOpenWebSockets()) this.openWebSocketGauge.labels(routeId).set(count);
    },
  });
  private readonly retries = new Counter({
    name: 'gateway_upstream_retries_total',
    help: 'Upstream attempts after the first one (retry policy), by route id',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  private readonly authFailures = new Counter({
    name: 'gateway_auth_failures_total',
    help: 'Requests refused by gateway authentication, by route id, scheme and reason',
    labelNames: ['route', 'scheme', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly cacheLookups = new Counter({
    name: 'gateway_cache_lookups_total',
    help: 'Response cache decisions, by route id and result (HIT, MISS, BYPASS)',
    labelNames: ['route', 'result'] as const,
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
    for (const metric of requestMetricViews(this.requests)) this.registry.registerMetric(metric);
    // Both results exist from the start so a scraper can alert on increase() without a gap.
    this.reloads.labels('success').inc(0);
    this.reloads.labels('failure').inc(0);
  }

  observeRequest(routeId: string, routePattern: string, method: string, status: number, durationMs: number): void {
    this.requests.observe(routeId, routePattern, method, status, durationMs);
  }

  rateLimitHit(routeId: string): void {
    this.rateLimitHits.labels(routeId).inc();
  }

  breakerStates(read: () => Iterable<BreakerGaugeValue>): void {
    this.readBreakers = read;
  }

  /** Where gateway_bus_messages_dropped_total is read from (the control-plane route source's bus). */
  busDropCounts(read: () => Readonly<Record<string, number>>): void {
    this.readBusDrops = read;
  }

  /** Where gateway_websocket_connections is read from. */
  openWebSockets(read: () => ReadonlyMap<string, number>): void {
    this.readOpenWebSockets = read;
  }

  upstreamRetry(routeId: string): void {
    this.retries.labels(routeId).inc();
  }

  authFailure(routeId: string, scheme: string, reason: string): void {
    this.authFailures.labels(routeId, scheme, reason).inc();
  }

  cacheLookup(routeId: string, result: 'HIT' | 'MISS' | 'BYPASS'): void {
    this.cacheLookups.labels(routeId, result).inc();
  }

  configReload(result: 'success' | 'failure'): void {
    this.reloads.labels(result).inc();
  }

  setRouteCount(count: number): void {
    this.routeCount.set(count);
  }

  setConfigRevision(revision: number): void {
    this.configRevision.set(revision);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
