import type { BreakerStatus, UpstreamHealthSink } from './ports';

/**
 * What readiness and /health/deep know about upstreams. Resilience policies register their
 * breakers (circuit-breaker policy) and health-check verdicts (health-check policy) here.
 */
export class UpstreamHealthRegistry implements UpstreamHealthSink {
  private names: string[] = [];
  private readonly breakerSources = new Map<string, () => BreakerStatus>();
  private readonly unhealthy = new Set<string>();

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
