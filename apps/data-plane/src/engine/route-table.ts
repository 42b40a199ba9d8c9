import { compilePathPattern, createRouteMatcher, type ProxyConfig, type RouteMatcher } from '@gateway/route-model';
import type { CompiledRoute } from './compiled-route';
import { forward } from './forward';
import { compilePipeline, sortFactories } from './pipeline';
import type { PolicyEnvironment, PolicyFactory } from './policy';
import type { UpstreamPool } from './upstream-client/upstream-pool';
import type { UpstreamPools } from './upstream-target';
import { UpstreamTlsResolver } from './upstream-tls';

/**
 * An immutable snapshot of the enabled routes, compiled for the hot path. A reload builds a new
 * table and swaps the reference; requests already matched keep the CompiledRoute they started with.
 */
export class RouteTable {
  private constructor(
    readonly routes: readonly CompiledRoute[],
    private readonly matcher: RouteMatcher<CompiledRoute>,
    readonly config: ProxyConfig,
    readonly loadedAt: Date,
  ) {}

  static compile(config: ProxyConfig, factories: readonly PolicyFactory[], baseEnv: Omit<PolicyEnvironment, 'upstreams'>, pools: UpstreamPools): RouteTable {
    const routeFactories = sortFactories(factories, 'route');
    const env = upstreamEnvironment(config, baseEnv);
    const tls = new UpstreamTlsResolver(config, baseEnv.services.logger);
    const compiled: CompiledRoute[] = [];
    for (const route of config.routes) {
      if (!route.enabled) continue;
      const pipeline = compilePipeline(routeFactories, route, env, forward);
      compiled.push({
        route,
        id: route.id,
        pattern: compilePathPattern(route.path),
        upstream: pools.targetFor(route, tls.forRoute(route)),
        ...pipeline,
      });
    }
    const matcher = createRouteMatcher(compiled.map((value) => ({ route: value.route, value })));
    return new RouteTable(compiled, matcher, config, new Date());
  }

  match(method: string, path: string): CompiledRoute | undefined {
    return this.matcher.match(method, path)?.value;
  }

  poolsInUse(): Set<UpstreamPool> {
    return new Set(this.routes.map((r) => r.upstream.pool));
  }
}

/** The environment policies see for one configuration: its settings plus its upstreams by name. */
export function upstreamEnvironment(config: ProxyConfig, env: Omit<PolicyEnvironment, 'upstreams'>): PolicyEnvironment {
  return { ...env, upstreams: new Map(config.upstreams.map((u) => [u.name, u])) };
}
