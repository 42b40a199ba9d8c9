import type { HealthCheckStatus } from '@gateway/events';
import type { EngineServices, PolicyStateKey } from '../../engine/ports';
import { eachInChunks, runToEnd } from '../../engine/time-slices';
import { upstreamTlsKey, type UpstreamTls } from '../../engine/upstream-tls';
import { HealthChecker, type HealthCheckSettings } from './health-checker';

/** The target of a named upstream a check probes: its verdict steers that upstream's balancer. */
export interface CheckedTarget {
  readonly upstream: string;
  readonly origin: string;
}

/** Best first: the verdict that lets the route serve, when it has several checks (one per target). */
const SERVING_ORDER: readonly HealthCheckStatus['status'][] = ['Healthy', 'Degraded', 'Unknown', 'Unhealthy'];

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
  private readonly targets = new Map<string, CheckedTarget>();
  private readonly routes = new Map<string, readonly string[]>();

  constructor(private readonly services: EngineServices) {}

  /** `tls`: the checked upstream's TLS settings (https checks); a change (a rotated CA file) replaces the check. */
  ensure(name: string, settings: HealthCheckSettings, target?: CheckedTarget, tls?: UpstreamTls): HealthChecker {
    const existing = this.checkers.get(name);
    if (existing !== undefined && JSON.stringify(existing.settings) === JSON.stringify(settings) && upstreamTlsKey(existing.tls) === upstreamTlsKey(tls)) return existing;
    existing?.stop();
    const checker = new HealthChecker(settings, (c) => this.changed(name, c), this.services.outbound, tls);
    this.checkers.set(name, checker);
    if (target === undefined) this.targets.delete(name);
    else this.targets.set(name, target);
    this.markHealthy(name, true);
    checker.start();
    return checker;
  }

  bindRoute(routeId: string, names: readonly string[]): void {
    this.routes.set(routeId, names);
  }

  /** The check behind a route (its own, else its upstream's; of several targets the one serving best); undefined when it has none. */
  status(routeId: string): HealthCheckStatus | undefined {
    return bestServing((this.routes.get(routeId) ?? []).flatMap((name) => this.checkers.get(name)?.status() ?? []));
  }

  /** Route checks by name, and each named upstream's checks as one entry under its name: the target serving best. */
  byUpstream(): Record<string, HealthCheckStatus> {
    const grouped = new Map<string, HealthCheckStatus[]>();
    for (const [name, checker] of this.checkers) {
      const key = this.targets.get(name)?.upstream ?? name;
      grouped.set(key, [...(grouped.get(key) ?? []), checker.status()]);
    }
    const out: Record<string, HealthCheckStatus> = {};
    for (const [key, statuses] of grouped) out[key] = bestServing(statuses) as HealthCheckStatus;
    return out;
  }

  all(): Record<string, HealthCheckStatus> {
    const out: Record<string, HealthCheckStatus> = {};
    for (const [name, checker] of this.checkers) out[name] = checker.status();
    return out;
  }

  /** Forgets which checks a route depends on (a release told that the route went, see PolicyFactory.release). */
  unbindRoute(routeId: string): void {
    this.routes.delete(routeId);
  }

  /** Stops and forgets one check (a release told that no route has it any more). */
  drop(name: string): void {
    const checker = this.checkers.get(name);
    if (checker === undefined) return;
    checker.stop();
    this.markHealthy(name, true);
    this.checkers.delete(name);
    this.targets.delete(name);
  }

  /** Stops the checks and forgets the routes the live configuration no longer has. */
  retain(routeIds: ReadonlySet<string>, names: ReadonlySet<string>): void {
    runToEnd(this.retainSteps(routeIds, names));
  }

  /** The same, a chunk a step (see PolicyFactory.retain). */
  *retainSteps(routeIds: ReadonlySet<string>, names: ReadonlySet<string>): Generator<void, void, void> {
    yield* eachInChunks(this.routes.keys(), (id) => {
      if (!routeIds.has(id)) this.routes.delete(id);
    });
    yield* eachInChunks(this.checkers.keys(), (name) => {
      if (!names.has(name)) this.drop(name);
    });
  }

  close(): void {
    for (const checker of this.checkers.values()) checker.stop();
    this.checkers.clear();
  }

  private changed(name: string, checker: HealthChecker): void {
    const status = checker.indicator;
    this.markHealthy(name, status !== 'Unhealthy', checker.status().lastError ?? undefined);
    this.services.logger.info({ check: name, status }, 'health check status changed');
  }

  private markHealthy(name: string, healthy: boolean, reason?: string): void {
    this.services.health.markHealthy(name, healthy);
    const target = this.targets.get(name);
    if (target !== undefined) this.services.health.markTargetHealthy(target.upstream, target.origin, healthy, reason);
  }
}

function bestServing(statuses: HealthCheckStatus[]): HealthCheckStatus | undefined {
  return statuses.sort((a, b) => SERVING_ORDER.indexOf(a.status) - SERVING_ORDER.indexOf(b.status))[0];
}

export const HEALTH_CHECKS: PolicyStateKey<HealthCheckRegistry> = {
  name: 'health-checks',
  create: (services) => new HealthCheckRegistry(services),
};
