import type { UpstreamDefinition } from '@gateway/route-model';
import type { CounterDefinition, GatewayMetrics, GaugeReading, Logger } from '../ports';
import { HostResolver } from './host-resolver';
import type { TargetAddress, TargetCounters } from './upstream-endpoint';
import { UpstreamGroup, type UpstreamGroupDeps, type UpstreamGroupStatus } from './upstream-group';

/** Attempts per target; labelled by upstream name and the target's host:port (never a URL with its path). */
export const UPSTREAM_TARGET_REQUESTS: CounterDefinition = {
  name: 'gateway_upstream_target_requests_total',
  help: 'Upstream attempts per target of a named upstream, by outcome (failure: connection error, timeout or 5xx)',
  labelNames: ['upstream', 'target', 'outcome'],
};

const TARGET_AVAILABLE = {
  name: 'gateway_upstream_target_available',
  help: 'Endpoints of a target that get traffic (neither ejected nor unhealthy)',
  labelNames: ['upstream', 'target'],
};

const TARGET_IN_FLIGHT = {
  name: 'gateway_upstream_target_in_flight',
  help: 'Requests in flight per target of a named upstream',
  labelNames: ['upstream', 'target'],
};

export interface UpstreamRegistryDeps {
  readonly logger: Logger;
  readonly metrics: GatewayMetrics;
  /** DNS servers (`ip` or `ip:port`) instead of the system's: GATEWAY_DNS_SERVERS. */
  readonly dnsServers?: readonly string[];
}

/**
 * The upstreams of the live configuration by name (proxy.yml and API ones alike), each with its
 * balancer and per-target state. Replaced as a whole when a configuration applies; a group whose
 * definition did not change is kept as it is, a changed one takes over the state of the endpoints
 * it still has. Routes look their group up per request, so target, health and DNS changes never
 * recompile a route.
 */
export class UpstreamRegistry {
  private groups = new Map<string, UpstreamGroup>();
  /** `upstream|origin` of targets the active health check holds Unhealthy, with why (survives replace). */
  private readonly unhealthy = new Map<string, string | undefined>();
  private readonly resolver: HostResolver;
  private readonly groupDeps: UpstreamGroupDeps;

  constructor(deps: UpstreamRegistryDeps) {
    this.resolver = new HostResolver(deps.dnsServers);
    const requests = deps.metrics.counter(UPSTREAM_TARGET_REQUESTS);
    this.groupDeps = {
      resolver: this.resolver,
      logger: deps.logger,
      counters: (upstream: string, target: TargetAddress): TargetCounters => ({
        success: requests.labels(upstream, target.hostPort, 'success'),
        failure: requests.labels(upstream, target.hostPort, 'failure'),
      }),
      activelyHealthy: (upstream: string, origin: string): boolean => !this.unhealthy.has(`${upstream}|${origin}`),
      unhealthyReason: (upstream: string, origin: string): string | undefined => this.unhealthy.get(`${upstream}|${origin}`),
    };
    deps.metrics.gauge(TARGET_AVAILABLE, () => this.readings((group, target) => group.endpoints.filter((e) => e.target === target && e.isAvailable(Date.now())).length));
    deps.metrics.gauge(TARGET_IN_FLIGHT, () => this.readings((group, target) => group.endpoints.reduce((sum, e) => (e.target === target ? sum + e.inFlight : sum), 0)));
  }

  group(name: string): UpstreamGroup | undefined {
    return this.groups.get(name);
  }

  replace(definitions: readonly UpstreamDefinition[]): void {
    const next = new Map<string, UpstreamGroup>();
    for (const definition of definitions) {
      const old = this.groups.get(definition.name);
      if (old !== undefined && JSON.stringify(old.definition) === JSON.stringify(definition)) {
        next.set(definition.name, old);
        continue;
      }
      const group = new UpstreamGroup(definition, this.groupDeps, old);
      group.start();
      next.set(definition.name, group);
    }
    for (const [name, group] of this.groups) if (next.get(name) !== group) group.stop();
    for (const key of this.unhealthy.keys()) if (!next.has(key.slice(0, key.indexOf('|')))) this.unhealthy.delete(key);
    this.groups = next;
  }

  /** The active health check's verdict on one target of an upstream (health-check policy). */
  setTargetHealth(upstream: string, origin: string, healthy: boolean, reason?: string): void {
    const key = `${upstream}|${origin}`;
    if (healthy) this.unhealthy.delete(key);
    else this.unhealthy.set(key, reason);
    this.groups.get(upstream)?.setActivelyHealthy(origin, healthy);
  }

  status(): Record<string, UpstreamGroupStatus> {
    const out: Record<string, UpstreamGroupStatus> = {};
    for (const [name, group] of this.groups) out[name] = group.status();
    return out;
  }

  close(): void {
    for (const group of this.groups.values()) group.stop();
    this.groups.clear();
    this.resolver.cancel();
  }

  private *readings(value: (group: UpstreamGroup, target: TargetAddress) => number): Iterable<GaugeReading> {
    for (const group of this.groups.values()) {
      const targets = new Set(group.endpoints.map((e) => e.target));
      for (const target of targets) yield { labels: [group.name, target.hostPort], value: value(group, target) };
    }
  }
}
