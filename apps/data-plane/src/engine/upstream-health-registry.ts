import type { BreakerStatus, UpstreamHealthSink } from './ports';
import type { UpstreamGroupStatus } from './upstreams/upstream-group';
import type { UpstreamRegistry } from './upstreams/upstream-registry';

/**
 * What readiness and /health/deep know about upstreams. Resilience policies register their
 * breakers (circuit-breaker policy) and health-check verdicts (health-check policy) here.
 */
export class UpstreamHealthRegistry implements UpstreamHealthSink {
  private names: string[] = [];
  private readonly breakerSources = new Map<string, () => BreakerStatus>();
  private readonly unhealthy = new Set<string>();

  /** `targets`: the named upstreams' balancers, told of per-target check verdicts. */
  constructor(private readonly targets?: UpstreamRegistry) {}

  setUpstreamNames(names: readonly string[]): void {
    this.names = [...names];
  }

  registerBreaker(name: string, status: () => BreakerStatus): void {
    this.breakerSources.set(name, status);
  }

  unregisterBreaker(name: string): void {
    this.breakerSources.delete(name);
  }

  markHealthy(name: string, healthy: boolean): void {
    if (healthy) this.unhealthy.delete(name);
    else this.unhealthy.add(name);
  }

  markTargetHealthy(upstream: string, origin: string, healthy: boolean, reason?: string): void {
    this.targets?.setTargetHealth(upstream, origin, healthy, reason);
  }

  upstreamTargets(): Record<string, UpstreamGroupStatus> {
    return this.targets?.status() ?? {};
  }

  breakers(): Record<string, BreakerStatus> {
    const out: Record<string, BreakerStatus> = {};
    for (const [name, status] of this.breakerSources) out[name] = status();
    return out;
  }

  unhealthyUpstreams(): string[] {
    return [...this.unhealthy];
  }

  upstreamNames(): string[] {
    return this.names;
  }
}
