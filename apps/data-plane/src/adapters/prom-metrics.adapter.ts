import { countsOf, deferredCounter } from './deferred-counter';
import { registerProcessMetrics } from './process-metrics';
import { Counter, Gauge, Registry } from './prom-client-classes';
import { BUS_DROPS_METRIC } from '@gateway/events/data-plane';
import type { CounterDefinition, CounterHandle, GatewayMetrics, GaugeDefinition, GaugeReading, MetricsExposition } from '../engine/ports';
import { ExpositionWriter } from './exposition-writer';
import { expositionScratch, type ExpositionScratch } from './exposition-warm-up';
import { gaugeExposition, type GaugeLinePrefixes } from './gauge-exposition';
import { registryLines, registryParts, type CounterLinePrefixes, type RegistryParts } from './registry-exposition';
import { requestMetricsExposition } from './request-metrics-exposition';
import { RequestSeriesStore } from './request-series';
import type { SeriesFamily } from './series-family';

/**
 * The engine's metrics port. Request observations go to a plain series store (the hot path),
 * created at a route's first request and written as bytes when /metrics is scraped
 * (request-metrics-exposition.ts); scrape-time gauges (breaker states) are written from their
 * readers the same way (gauge-exposition.ts); the counters policies declare (rate-limit hits, cache
 * lookups; counted in plain numbers and handed to prom-client when it collects, deferred-counter.ts;
 * their lines written from prefixes kept per series, registry-exposition.ts), the rarer events
 * (reloads) and the process metrics use prom-client.
 */
export class PromMetrics implements GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests = new RequestSeriesStore();
  private readonly counters = new Map<string, Counter>();
  /** The same counters, which a scrape writes itself (registry-exposition.ts), and their series' line prefixes. */
  private readonly ownCounters = new Set<object>();
  private readonly counterPrefixes: CounterLinePrefixes = new WeakMap();
  /** The label names of `counters` (the warm-up's scratch counters take them). */
  private readonly counterLabelNames: (readonly string[])[] = [];
  private readonly gauges = new Map<string, { readonly definition: GaugeDefinition; readonly read: () => Iterable<GaugeReading>; readonly prefixes: GaugeLinePrefixes }>();
  private readonly configRevision = new Gauge({
    name: 'gateway_config_revision',
    help: "The control plane's configuration revision of the live route table (absent in proxy.yml-only mode)",
    registers: [this.registry],
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
    registerProcessMetrics(this.registry);
    // Both results exist from the start so a scraper can alert on increase() without a gap.
    this.reloads.labels('success').inc(0);
    this.reloads.labels('failure').inc(0);
  }

  observeRequest(routeId: string, routePattern: string, method: string, status: number, durationMs: number): void {
    this.requests.observe(routeId, routePattern, method, status, durationMs);
  }

  counter(definition: CounterDefinition): CounterHandle {
    let counter = this.counters.get(definition.name);
    if (counter === undefined) {
      counter = deferredCounter(definition, this.registry);
      this.counters.set(definition.name, counter);
      this.ownCounters.add(counter);
      this.counterLabelNames.push([...definition.labelNames]);
    }
    return countsOf(counter);
  }

  gauge(definition: GaugeDefinition, read: () => Iterable<GaugeReading>): void {
    const known = this.gauges.get(definition.name);
    // A later call replaces the reader; the family keeps its place in the output.
    this.gauges.set(definition.name, { definition: known?.definition ?? definition, read, prefixes: known?.prefixes ?? new WeakMap() });
  }

  /** Where gateway_bus_messages_dropped_total is read from (the control-plane route source's bus). */
  busDropCounts(read: () => Readonly<Record<string, number>>): void {
    this.readBusDrops = read;
  }

  /** Where gateway_websocket_connections is read from. */
  openWebSockets(read: () => ReadonlyMap<string, number>): void {
    this.readOpenWebSockets = read;
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

  async exposition(): Promise<MetricsExposition> {
    const registered = await registryParts(this.registry, this.ownCounters);
    const out = new ExpositionWriter();
    return { contentType: this.registry.contentType, chunks: this.chunks(out, registered, this.requests.byPattern, this.requests.byId), recycle: (sent) => out.recycle(sent) };
  }

  /** The synthetic series of a warm-up of the render (exposition-warm-up.ts), shaped as this registry's. */
  expositionScratch(): ExpositionScratch {
    return expositionScratch(this.counterLabelNames);
  }

  /**
   * One warm-up round: a scrape written into a writer whose chunks are dropped, with the scratch
   * request series and counters in place of the served ones, so that the first real scrape runs
   * compiled code instead of V8's interpreter and its compiler (issue 19, docs/data-plane.md
   * "/metrics cardinality"). The registry's own families and the gauges are the served ones, read
   * as a scrape reads them; no function the request path runs is called. Each chunk is its own
   * task, as a scrape's are (it waits for the socket): the first round runs interpreted, and in
   * one task it held the event loop ~150 ms, a second after start, while requests wait. Resolves
   * with the bytes.
   */
  async warmUpRound(scratch: ExpositionScratch): Promise<number> {
    const registered = [...(await registryParts(this.registry, this.ownCounters)), ...scratch.counters];
    const out = new ExpositionWriter();
    let bytes = 0;
    for (const chunk of this.chunks(out, registered, scratch.byPattern, scratch.byId)) {
      bytes += chunk.length;
      out.recycle(chunk);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return bytes;
  }

  /**
   * prom-client's part (it ends with one newline; families are separated by a blank line), then
   * the gauges and request metrics in the same layout, written as the response asks for more.
   */
  private *chunks(out: ExpositionWriter, registered: RegistryParts, byPattern: SeriesFamily, byId: SeriesFamily): Generator<Uint8Array, void, undefined> {
    yield* registryLines(out, registered, this.counterPrefixes);
    for (const { definition, read, prefixes } of this.gauges.values()) {
      out.newline();
      yield* gaugeExposition(out, definition, read(), prefixes);
    }
    out.newline();
    yield* requestMetricsExposition(byPattern, byId, out);
    yield* out.finish();
  }
}
