import type { HealthCheckStatus } from '@gateway/events';
import type { EngineServices, PolicyStateKey } from '../../engine/ports';
import { HealthChecker, type HealthCheckSettings } from './health-checker';

/** Name of a route's own check (upstream checks are named after the upstream). */
export function routeCheckName(routeId: string): string {
  return `route:${routeId}`;
}

/**
 * Active health checks keyed by route id or upstream name. A reload keeps a check whose settings
 * did not change (its counts too), replaces one whose settings did, and stops the ones no longer
 * configured. Verdicts go to the upstream health registry (readiness, decision 19).
 */
export class HealthCheckRegistry {
  private readonly checkers = new Map<string, HealthChecker>();
  private readonly routes = new Map<string, string>();

  constructor(private readonly services: EngineServices) {}

  ensure(name: string, settings: HealthCheckSettings): HealthChecker {
    const existing = this.checkers.get(name);
    if (existing !== undefined && JSON.stringify(existing.settings) === JSON.stringify(settings)) return existing;
    existing?.stop();
    const checker = new HealthChecker(settings, (c) => this.changed(name, c), this.services.outbound);
    this.checkers.set(name, checker);
    this.services.health.markHealthy(name, true);
    checker.start();
    return checker;
  }

  bindRoute(routeId: string, name: string): void {
    this.routes.set(routeId, name);
  }

  /** The check behind a route (its own, else its upstream's); undefined when it has none. */
  status(routeId: string): HealthCheckStatus | undefined {
    const name = this.routes.get(routeId);
    return name === undefined ? undefined : this.checkers.get(name)?.status();
  }

  all(): Record<string, HealthCheckStatus> {
    const out: Record<string, HealthCheckStatus> = {};
    for (const [name, checker] of this.checkers) out[name] = checker.status();
    return out;
  }

  retain(routeIds: ReadonlySet<string>, names: ReadonlySet<string>): void {
    for (const id of this.routes.keys()) if (!routeIds.has(id)) this.routes.delete(id);
    for (const [name, checker] of this.checkers) {
      if (names.has(name)) continue;
      checker.stop();
      this.checkers.delete(name);
      this.services.health.markHealthy(name, true);
    }
  }

  close(): void {
    for (const checker of this.checkers.values()) checker.stop();
    this.checkers.clear();
  }

  private changed(name: string, checker: HealthChecker): void {
    const status = checker.indicator;
    this.services.health.markHealthy(name, status !== 'Unhealthy');
    this.services.logger.info({ check: name, status }, 'health check status changed');
  }
}

export const HEALTH_CHECKS: PolicyStateKey<HealthCheckRegistry> = {
  name: 'health-checks',
  create: (services) => new HealthCheckRegistry(services),
};
