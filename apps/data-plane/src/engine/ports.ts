import type { BreakerStatus } from '@gateway/events';
import type { OutboundAddressRule } from '@gateway/outbound-target';
import type { DeadlineWheel } from './deadline-wheel';
import type { ServiceLookup } from './service-registry';
import type { UpstreamCaFileRule } from './upstream-ca-file-rule';
import type { UpstreamGroupStatus } from './upstreams/upstream-group';

export type { BreakerStatus } from '@gateway/events';
import type { Exchange } from './exchange';

/**
 * What the engine needs from the outside world. Adapters under `src/adapters/` implement these
 * with libraries (pino, prom-client); the engine itself imports only node built-ins.
 */
export interface Logger {
  /**
   * LOG_LEVEL is debug or more verbose. Fixed for the process: policies that log only at debug
   * (the access log) read it when a route compiles and cost nothing per request otherwise.
   */
  readonly debugEnabled?: boolean;
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * A counter a policy declares (its `metrics` list); the composition root registers every declared
 * one at boot so a scraper sees it before the first increment.
 */
export interface CounterDefinition {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
}

/** A counter with its label values bound (bind them when the route compiles: nothing to hash per request). */
export interface BoundCounter {
  inc(): void;
}

export interface CounterHandle {
  labels(...values: string[]): BoundCounter;
}

/** A gauge read when /metrics is scraped (values that change by time alone, such as breaker states). */
export interface GaugeDefinition {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
}

export interface GaugeReading {
  readonly labels: readonly string[];
  readonly value: number;
}

export interface GatewayMetrics {
  /**
   * One finished request. Labels per decision 18: the route id for gateway_*, the path pattern for
   * http_*. Positional, so the hot path allocates no observation object.
   */
  observeRequest(routeId: string, routePattern: string, method: string, status: number, durationMs: number): void;
  /** The counter a definition names (created on first use, the same handle after). */
  counter(definition: CounterDefinition): CounterHandle;
  /** Where a scrape-time gauge reads its values; a later call replaces the reader. */
  gauge(definition: GaugeDefinition, read: () => Iterable<GaugeReading>): void;
  configReload(result: 'success' | 'failure'): void;
  setRouteCount(count: number): void;
  /** The control plane revision the live table was built from (gateway_config_revision). */
  setConfigRevision(revision: number): void;
  /** The text exposition of every metric, written chunk by chunk while the response sends it. */
  exposition(): Promise<MetricsExposition>;
}

/**
 * A scrape in progress: each `next()` writes the following part of the text and returns its
 * bytes, so a large exposition never exists as one string and the socket's pace sets the writer's.
 */
export interface MetricsExposition {
  readonly contentType: string;
  readonly chunks: Iterator<Uint8Array, void, undefined>;
  /** Gives a chunk back once it has been sent (or dropped), so its memory is reused for a later one. */
  recycle(sent: Uint8Array): void;
}

/** Upstream-facing health that readiness reads (decision 19); filled in by resilience policies. */
export interface UpstreamHealthSource {
  /** Every breaker by name: an upstream name, or `route:<id>` for a route's own. */
  breakers(): Record<string, BreakerStatus>;
  /** Targets whose active health check says Unhealthy: upstream names and `route:<id>` checks. */
  unhealthyUpstreams(): string[];
  /** Every upstream name known to the current configuration. */
  upstreamNames(): string[];
  /** Per-target balancing state of every named upstream (/health/deep). */
  upstreamTargets(): Record<string, UpstreamGroupStatus>;
}

/** Where resilience policies report breakers and health-check verdicts (readiness reads them back). */
export interface UpstreamHealthSink extends UpstreamHealthSource {
  registerBreaker(name: string, status: () => BreakerStatus): void;
  unregisterBreaker(name: string): void;
  markHealthy(name: string, healthy: boolean): void;
  /**
   * The active check of one target (its origin) of a named upstream: the balancer skips it while
   * unhealthy. `reason`: the failure that made it unhealthy, shown in /health/deep.
   */
  markTargetHealthy(upstream: string, origin: string, healthy: boolean, reason?: string): void;
}

/** Names one piece of long-lived policy state and how to make it. */
export interface PolicyStateKey<T> {
  readonly name: string;
  create(services: EngineServices): T;
}

/** Long-lived policy state, created on first use (see policy-state.ts). */
export interface PolicyStateStore {
  get<T>(key: PolicyStateKey<T>): T;
}

export interface EngineServices {
  /** Deadlines of upstream attempts (timeout policy). */
  readonly deadlines: DeadlineWheel<Exchange>;
  readonly logger: Logger;
  readonly metrics: GatewayMetrics;
  readonly health: UpstreamHealthSink;
  /** Long-lived policy state (breakers, health checks, usage) that survives reloads. */
  readonly state: PolicyStateStore;
  /** Gateway version (package version), for /version and /health. */
  readonly version: string;
  readonly startedAt: number;
  /** Where requests the gateway makes on an admin's behalf (active health checks) may go. */
  readonly outbound: OutboundAddressRule;
  /** Where upstreams' own CA files may be read from; set when upstreams come from a control plane. */
  readonly upstreamCaFiles?: UpstreamCaFileRule;
  /**
   * The services policies declare (response cache, verifiers, rate-limit counters...), provided by
   * the composition root; policies resolve them when a route compiles.
   */
  readonly provided: ServiceLookup;
}
