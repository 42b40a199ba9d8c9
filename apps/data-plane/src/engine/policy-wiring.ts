import type { PolicyFactory } from './policy';
import type { GatewayMetrics } from './ports';
import type { ServiceRegistry } from './service-registry';

/**
 * Checked once at boot, after the composition root provided its services: every service a
 * registered policy declares is there (a missing one is a wiring bug, better found before the first
 * route compiles than as a 500), and every counter a policy declares is registered so a scraper
 * sees it from the start.
 */
export function wirePolicies(factories: readonly PolicyFactory[], provided: ServiceRegistry, metrics: GatewayMetrics): void {
  const missing = factories.flatMap((factory) => provided.missing(factory.services ?? []).map((name) => `${factory.key} needs '${name}'`));
  if (missing.length > 0) throw new Error(`policy services not provided: ${missing.join(', ')}`);
  for (const factory of factories) for (const definition of factory.metrics ?? []) metrics.counter(definition);
}
