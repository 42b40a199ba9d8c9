import { upstreamTargets, type HealthCheckConfig, type ProxyConfig, type Route, type UpstreamDefinition } from '@gateway/route-model';
import type { LocalReply, PolicyEnvironment, PolicyFactory } from '../../engine/policy';
import { eachInChunks } from '../../engine/time-slices';
import type { UpstreamTls } from '../../engine/upstream-tls';
import { HEALTH_CHECKS, routeCheckName, type CheckedTarget } from './health-check-registry';
import type { HealthChecker, HealthCheckSettings } from './health-checker';

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

interface Check {
  readonly name: string;
  readonly settings: HealthCheckSettings;
  readonly target?: CheckedTarget;
  /** Name of the upstream whose TLS settings an https check uses (undefined: a route's own URL). */
  readonly tlsOf: string | undefined;
}

/** The checks a route's traffic depends on: its own `healthCheck`, else its upstream's, one per target. */
function checksOf(route: Route, env: PolicyEnvironment): Check[] {
  if (route.healthCheck?.enabled === true) return [{ name: routeCheckName(route.id), settings: settingsOf(route.healthCheck, route.upstream), tlsOf: route.upstreamName }];
  const upstream = route.upstreamName === undefined ? undefined : env.upstreams.get(route.upstreamName);
  return upstream?.healthCheck?.enabled === true ? upstreamChecks(upstream, upstream.healthCheck) : [];
}

/** An https check trusts, verifies and sends SNI exactly as the requests to the same upstream do. */
function tlsOf(check: Check, env: PolicyEnvironment): UpstreamTls | undefined {
  return check.settings.url.startsWith('https:') ? env.upstreamTls.forUpstream(check.tlsOf) : undefined;
}

/**
 * One check per target. A single target keeps the check named after the upstream and its `url` as
 * written; with several, each is named `<upstream>/<host:port>` and probes the path and query of
 * `url` (default: the target URL plus /health) on its own origin.
 */
function upstreamChecks(upstream: UpstreamDefinition, config: HealthCheckConfig): Check[] {
  const targets = upstreamTargets(upstream);
  return targets.map((target) => {
    const url = new URL(target.url);
    const probe = targets.length === 1 || config.url === undefined ? config : { ...config, url: onOrigin(config.url, url.origin) };
    return { name: targets.length === 1 ? upstream.name : `${upstream.name}/${url.host}`, settings: settingsOf(probe, target.url), target: { upstream: upstream.name, origin: url.origin }, tlsOf: upstream.name };
  });
}

function onOrigin(checkUrl: string, origin: string): string {
  const url = new URL(checkUrl);
  return `${origin}${url.pathname}${url.search}`;
}

/** The running checks of a route's traffic, started or found and bound to the route, and their interval; undefined when it has none. */
function routeCheckers(route: Route, env: PolicyEnvironment): { checkers: HealthChecker[]; interval: number } | undefined {
  const checks = checksOf(route, env);
  if (checks.length === 0) return undefined;
  const registry = env.services.state.get(HEALTH_CHECKS);
  const checkers = checks.map((check) => registry.ensure(check.name, check.settings, check.target, tlsOf(check, env)));
  registry.bindRoute(route.id, checks.map((check) => check.name));
  return { checkers, interval: (checks[0] as Check).settings.interval };
}

/**
 * `healthCheck` of a route or its named upstream (spec 2.4, 3.3): checks run in the background;
 * while every target is Unhealthy the route answers 503 at once instead of making a doomed call.
 * Unknown, Degraded and Healthy targets get traffic.
 */
export const healthCheckPolicy: PolicyFactory = {
  key: 'health-check',
  scope: 'route',
  configures: 'healthCheck',
  order: 550,
  // Checks probe from load on, whether or not the route has had a request.
  prepare: (route, env) => {
    routeCheckers(route, env);
  },
  create: (route, env) => {
    if (route === undefined) return null;
    const running = routeCheckers(route, env);
    if (running === undefined) return null;
    const { checkers, interval } = running;
    const reply: LocalReply = { kind: 'error', code: 'UPSTREAM_UNHEALTHY', retryAfter: Math.max(1, Math.ceil(interval / 1000)) };
    // Unhealthy targets are skipped by the balancer; the route answers 503 only when none is left.
    const allUnhealthy = (): boolean => {
      for (let i = 0; i < checkers.length; i += 1) if ((checkers[i] as HealthChecker).indicator !== 'Unhealthy') return false;
      return true;
    };
    return {
      onRequest: () => (allUnhealthy() ? reply : undefined),
    };
  },
  retain: retainAll,
  *release(left, config, env) {
    const registry = env.services.state.get(HEALTH_CHECKS);
    const released: Array<{ id: string; names: string[]; routeKeeps: boolean }> = [];
    for (const gone of left.gone) {
      if (!gone.enabled) continue;
      const live = left.live(gone.id);
      const kept = new Set(live !== undefined ? checksOf(live, env).map((check) => check.name) : []);
      const names = checksOf(gone, env)
        .map((check) => check.name)
        .filter((name) => !kept.has(name));
      // An upstream's checks are shared by every route to it: whether another route still
      // depends on them, only a walk says. Not needed when the route under the same id kept them.
      if (names.some((name) => name !== routeCheckName(gone.id))) {
        yield* retainAll(config, env);
        return;
      }
      released.push({ id: gone.id, names, routeKeeps: kept.size > 0 });
    }
    yield* eachInChunks(released, ({ id, names, routeKeeps }) => {
      for (const name of names) registry.drop(name);
      if (!routeKeeps) registry.unbindRoute(id);
    });
  },
};

/** Keeps the checks of the configuration's enabled routes and their upstreams, a walk over every route (see PolicyFactory.retain). */
function* retainAll(config: ProxyConfig, env: PolicyEnvironment): Generator<void, void, void> {
  const names = new Set<string>();
  const routeIds = new Set<string>();
  yield* eachInChunks(config.routes, (route) => {
    if (!route.enabled) return;
    const checks = checksOf(route, env);
    if (checks.length === 0) return;
    for (const check of checks) names.add(check.name);
    routeIds.add(route.id);
  });
  yield* env.services.state.get(HEALTH_CHECKS).retainSteps(routeIds, names);
}
