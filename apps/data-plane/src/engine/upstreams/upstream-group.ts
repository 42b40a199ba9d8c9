import { upstreamTargets, UPSTREAM_DEFAULTS, type UpstreamBalancing, type UpstreamDefinition } from '@gateway/route-model';
import type { Logger } from '../ports';
import type { Balancer, Candidates } from './balancer';
import { ConsistentHashBalancer } from './consistent-hash.balancer';
import { HostResolver, type ResolvedHost } from './host-resolver';
import { LeastConnectionsBalancer } from './least-connections.balancer';
import { OutlierDetector } from './outlier-detector';
import { RoundRobinBalancer } from './round-robin.balancer';
import { endpointKey, UpstreamEndpoint, type TargetAddress, type TargetCounters } from './upstream-endpoint';

/** A DNS refresh never comes sooner than this, whatever the TTL (a TTL of 0 must not spin). */
const MIN_DNS_REFRESH_MS = 1000;

export interface UpstreamGroupDeps {
  readonly resolver: HostResolver;
  readonly logger: Logger;
  counters(upstream: string, target: TargetAddress): TargetCounters;
  /** The active health check's verdict on a target (origin), kept by the registry across reloads. */
  activelyHealthy(upstream: string, origin: string): boolean;
  /** Why the active check holds a target (origin) unhealthy, when it said. */
  unhealthyReason(upstream: string, origin: string): string | undefined;
}

/** One endpoint as /health/deep shows it. */
export interface EndpointStatus {
  index: number;
  target: string;
  address?: string;
  weight: number;
  state: 'available' | 'ejected' | 'unhealthy';
  /** With state unhealthy: the active check's failure that made it so (a TLS error, a CA file that did not load...). */
  reason?: string;
  inFlight: number;
  consecutiveFailures: number;
  ejections: number;
  ejectedUntil?: string;
}

export interface UpstreamGroupStatus {
  algorithm: UpstreamBalancing['algorithm'];
  endpoints: EndpointStatus[];
}

/**
 * One upstream in the data plane: its targets expanded into endpoints (one per address its host
 * name resolves to), the balancer over them, outlier detection, and the DNS refresh that keeps the
 * endpoints current. Routes never hold a group: they look it up by name per request in the
 * UpstreamRegistry, so none of this state is rebuilt when routes are.
 */
export class UpstreamGroup {
  readonly name: string;
  readonly balancing: UpstreamBalancing;
  /** Lower-cased header or cookie name hashed by consistent-hash. */
  readonly hashName: string | undefined;
  private readonly targets: readonly TargetAddress[];
  private readonly outliers: OutlierDetector | undefined;
  private readonly resolved = new Map<string, ResolvedHost>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private endpointList: readonly UpstreamEndpoint[] = [];
  private balancer: Balancer = new RoundRobinBalancer([]);
  private stopped = false;

  constructor(
    readonly definition: UpstreamDefinition,
    private readonly deps: UpstreamGroupDeps,
    previous: UpstreamGroup | undefined,
  ) {
    this.name = definition.name;
    this.balancing = definition.balancing ?? { algorithm: UPSTREAM_DEFAULTS.algorithm };
    this.hashName = this.balancing.hashKey?.toLowerCase();
    this.targets = upstreamTargets(definition).map(parseTarget);
    this.outliers = definition.outlierDetection?.enabled === true ? new OutlierDetector(definition.outlierDetection) : undefined;
    if (previous !== undefined) for (const [host, answer] of previous.resolved) this.resolved.set(host, answer);
    this.rebuild(previous?.endpointsByKey());
  }

  get endpoints(): readonly UpstreamEndpoint[] {
    return this.endpointList;
  }

  /** Starts following the DNS of every host name among the targets. */
  start(): void {
    for (const host of new Set(this.targets.map((t) => t.hostname))) {
      if (HostResolver.needsResolution(host)) this.refresh(host);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /**
   * The endpoint for one attempt: an available one not tried by this exchange; else an available
   * one (a retry may return to a target when all were tried); else any endpoint at all, because
   * with every endpoint ejected or unhealthy a try still beats a certain failure (Envoy's panic mode).
   */
  choose(hashKey: string | undefined, tried: readonly UpstreamEndpoint[] | undefined): UpstreamEndpoint | undefined {
    const now = Date.now();
    const pick = (candidates: Candidates): UpstreamEndpoint | undefined => this.balancer.pick(candidates, hashKey);
    return (
      pick({ now, tried, healthOnly: true }) ??
      (tried === undefined ? undefined : pick({ now, tried: undefined, healthOnly: true })) ??
      pick({ now, tried: undefined, healthOnly: false })
    );
  }

  /** One attempt's outcome: counted, and judged by outlier detection. */
  record(endpoint: UpstreamEndpoint, failed: boolean): void {
    (failed ? endpoint.counters.failure : endpoint.counters.success).inc();
    if (this.outliers === undefined) return;
    const now = Date.now();
    if (this.outliers.record(endpoint, failed, this.endpointList, now)) {
      this.deps.logger.warn(
        { upstream: this.name, target: endpoint.target.hostPort, address: endpoint.address, ejections: endpoint.ejections, ejectedForMs: endpoint.ejectedUntil - now },
        'upstream target ejected',
      );
    }
  }

  /** The active check's verdict changed for a target (its origin). */
  setActivelyHealthy(origin: string, healthy: boolean): void {
    for (const endpoint of this.endpointList) if (endpoint.target.origin === origin) endpoint.activelyHealthy = healthy;
  }

  status(): UpstreamGroupStatus {
    const now = Date.now();
    return {
      algorithm: this.balancing.algorithm,
      endpoints: this.endpointList.map((e) => ({
        index: e.target.index,
        target: e.target.hostPort,
        ...(e.address === undefined ? {} : { address: e.address }),
        weight: e.weight,
        state: !e.activelyHealthy ? 'unhealthy' : e.isEjected(now) ? 'ejected' : 'available',
        ...(e.activelyHealthy ? {} : reasonOf(this.deps.unhealthyReason(this.name, e.target.origin))),
        inFlight: e.inFlight,
        consecutiveFailures: e.consecutiveFailures,
        ejections: e.ejections,
        ...(e.isEjected(now) ? { ejectedUntil: new Date(e.ejectedUntil).toISOString() } : {}),
      })),
    };
  }

  private endpointsByKey(): Map<string, UpstreamEndpoint> {
    return new Map(this.endpointList.map((e) => [e.key, e]));
  }

  /**
   * Endpoints for the current DNS answers. One whose key, target index and weight are unchanged is
   * kept as it is (its in-flight count belongs to requests still running); one whose weight
   * changed is new but keeps its health and ejection history.
   */
  private rebuild(previous: ReadonlyMap<string, UpstreamEndpoint> | undefined): void {
    const endpoints: UpstreamEndpoint[] = [];
    for (const target of this.targets) {
      const addresses: ReadonlyArray<string | undefined> = this.resolved.get(target.hostname)?.addresses ?? [undefined];
      for (const address of addresses) {
        const old = previous?.get(endpointKey(target.origin, address));
        if (old !== undefined && old.target.index === target.index && old.weight === target.weight) {
          endpoints.push(old);
          continue;
        }
        const endpoint = new UpstreamEndpoint(target, address, this.deps.counters(this.name, target));
        endpoint.activelyHealthy = this.deps.activelyHealthy(this.name, target.origin);
        if (old !== undefined) {
          endpoint.consecutiveFailures = old.consecutiveFailures;
          endpoint.ejections = old.ejections;
          endpoint.ejectedUntil = old.ejectedUntil;
        }
        endpoints.push(endpoint);
      }
    }
    this.endpointList = endpoints;
    this.balancer = createBalancer(this.balancing, endpoints);
  }

  private refresh(host: string): void {
    const interval = this.definition.dnsRefreshInterval ?? UPSTREAM_DEFAULTS.dnsRefreshInterval;
    this.deps.resolver.resolve(host).then(
      (answer) => {
        if (this.stopped) return;
        this.applyAnswer(host, answer);
        // No answer: ask again at the pace of the last good one (the name may be back soon).
        const ttlMs = (answer ?? this.resolved.get(host))?.ttlMs ?? interval;
        this.schedule(host, Math.max(MIN_DNS_REFRESH_MS, Math.min(ttlMs, interval)));
      },
      (error: unknown) => {
        // Unexpected (resolve4/6 failures are settled inside resolve): keep the last answer, try again later.
        if (this.stopped) return;
        this.deps.logger.warn({ upstream: this.name, host, err: String(error) }, 'DNS refresh failed');
        this.schedule(host, interval);
      },
    );
  }

  private schedule(host: string, ms: number): void {
    const timer = setTimeout(() => this.refresh(host), ms);
    timer.unref();
    this.timers.set(host, timer);
  }

  /** No answer keeps the last one: a DNS outage must not empty an upstream that still works. */
  private applyAnswer(host: string, answer: ResolvedHost | undefined): void {
    if (answer === undefined) return;
    const before = this.resolved.get(host)?.addresses;
    this.resolved.set(host, answer);
    if (before !== undefined && before.join(',') === answer.addresses.join(',')) return;
    this.deps.logger.info({ upstream: this.name, host, addresses: answer.addresses }, 'upstream addresses changed');
    this.rebuild(this.endpointsByKey());
  }
}

function createBalancer(balancing: UpstreamBalancing, endpoints: readonly UpstreamEndpoint[]): Balancer {
  switch (balancing.algorithm) {
    case 'least-connections':
      return new LeastConnectionsBalancer(endpoints);
    case 'consistent-hash':
      return new ConsistentHashBalancer(endpoints);
    case 'round-robin':
      return new RoundRobinBalancer(endpoints);
  }
}

function parseTarget(target: { url: string; weight: number }, index: number): TargetAddress {
  const url = new URL(target.url);
  const secure = url.protocol === 'https:';
  return {
    index,
    origin: url.origin,
    secure,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    hostPort: url.host,
    weight: target.weight,
  };
}

function reasonOf(reason: string | undefined): { reason?: string } {
  return reason === undefined ? {} : { reason };
}
