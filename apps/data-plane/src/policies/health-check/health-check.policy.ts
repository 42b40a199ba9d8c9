import { upstreamTargets, type HealthCheckConfig, type ProxyConfig, type Route } from '@gateway/route-model';
import type { LocalReply, PolicyEnvironment, PolicyFactory } from '../../engine/policy';
import { HEALTH_CHECKS, routeCheckName } from './health-check-registry';
import type { HealthCheckSettings } from './health-checker';

function settingsOf(config: HealthCheckConfig, base: string): HealthCheckSettings {
  return {
    url: config.url ?? `${base.replace(/\/+$/, '')}/health`,
    interval: config.interval,
    timeout: config.timeout,
    healthyThreshold: config.healthyThreshold,
    unhealthyThreshold: config.unhealthyThreshold,
    expectedStatus: config.expectedStatus ?? 200,
    expectedBody: config.expectedBody,
  };
}

/** The check a route's traffic depends on: its own `healthCheck`, else its upstream's. */
function checkOf(route: Route, env: PolicyEnvironment): { name: string; settings: HealthCheckSettings } | undefined {
  if (route.healthCheck?.enabled === true) return { name: routeCheckName(route.id), settings: settingsOf(route.healthCheck, route.upstream) };
  const upstream = route.upstreamName === undefined ? undefined : env.upstreams.get(route.upstreamName);
  if (upstream?.healthCheck?.enabled === true) return { name: upstream.name, settings: settingsOf(upstream.healthCheck, upstreamTargets(upstream)[0]?.url ?? '') };
  return undefined;
}

/**
 * `healthCheck` of a route or its `proxy.yml` upstream (spec 2.4, 3.3): checks run in the
 * background; while the target is Unhealthy the route answers 503 at once instead of making a
 * doomed call. Unknown, Degraded and Healthy targets get traffic.
 */
export const healthCheckPolicy: PolicyFactory = {
  key: 'health-check',
  scope: 'route',
  configures: 'healthCheck',
  order: 550,
  create: (route, env) => {
    if (route === undefined) return null;
    const check = checkOf(route, env);
    if (check === undefined) return null;
    const registry = env.services.state.get(HEALTH_CHECKS);
    const checker = registry.ensure(check.name, check.settings);
    registry.bindRoute(route.id, check.name);
    const reply: LocalReply = { kind: 'error', code: 'UPSTREAM_UNHEALTHY', retryAfter: Math.max(1, Math.ceil(check.settings.interval / 1000)) };
    return {
      onRequest: () => (checker.indicator === 'Unhealthy' ? reply : undefined),
    };
  },
  retain: (config: ProxyConfig, env) => {
    const names = new Set<string>();
    const routeIds = new Set<string>();
    for (const route of config.routes) {
      if (!route.enabled) continue;
      const check = checkOf(route, env);
      if (check === undefined) continue;
      names.add(check.name);
      routeIds.add(route.id);
    }
    env.services.state.get(HEALTH_CHECKS).retain(routeIds, names);
  },
};
