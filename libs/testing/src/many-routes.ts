/**
 * A large proxy.yml for benchmarks and tests (issue 19: reloads, memory and start-up at 10,000
 * routes). Deterministic: the same options give the same text, so a reload of it changes nothing
 * and a reload with `changed` changes exactly those routes.
 *
 * Route i has the id `r-<i>` and one of three path kinds in turn (prefix `/p<i>/*`, exact
 * `/e<i>/status`, wildcard `/w<i>/*\/items`); its upstream is `<origin>/r/<i>`, so an echoing
 * upstream sees `/r/<i>...` and a test can tell which route answered. A third of the routes
 * (i / 3 even, every kind among them) carry policies, rotating through four sets.
 */

export type ManyRoutesPathKind = 'prefix' | 'exact' | 'wildcard';

/** The policy sets a generated route may carry (`none` for two thirds of them). */
export type ManyRoutesPolicySet = 'none' | 'rate-limit' | 'breaker-headers' | 'cache' | 'all';

export interface ManyRoutesOptions {
  /** Number of routes (10,000 for the issue's table). */
  count: number;
  /** Where every route forwards, e.g. `http://127.0.0.1:9000`. */
  upstreamOrigin: string;
  /** Route indexes whose upstream path gets `/changed` appended (a reload that changes them). */
  changed?: ReadonlySet<number>;
  /** Rate-limit `max` of the routes that have one (default 1,000,000: never reached by a benchmark). */
  rateLimitMax?: number;
  /** Their window in ms (default 60,000). */
  rateLimitWindowMs?: number;
}

export interface ManyRoutesRoute {
  readonly index: number;
  readonly id: string;
  readonly path: string;
  readonly kind: ManyRoutesPathKind;
  readonly policies: ManyRoutesPolicySet;
  /** A request path this route matches (and no other generated route does). */
  readonly requestPath: string;
  /** The path the upstream receives for `requestPath`. */
  readonly upstreamPath: string;
}

export interface ManyRoutesConfig {
  readonly routes: readonly ManyRoutesRoute[];
  readonly yaml: string;
}

const POLICY_ROTATION: readonly ManyRoutesPolicySet[] = ['rate-limit', 'breaker-headers', 'cache', 'all'];

/** The route at `index`, without building the others (a load generator picks routes at random). */
export function manyRoutesRoute(index: number, changed?: ReadonlySet<number>): ManyRoutesRoute {
  const kind: ManyRoutesPathKind = index % 3 === 0 ? 'prefix' : index % 3 === 1 ? 'exact' : 'wildcard';
  const group = Math.floor(index / 3);
  const policies = group % 2 === 0 ? (POLICY_ROTATION[(group / 2) % POLICY_ROTATION.length] as ManyRoutesPolicySet) : 'none';
  const base = `/r/${index}${changed?.has(index) ? '/changed' : ''}`;
  switch (kind) {
    case 'prefix':
      return { index, id: `r-${index}`, path: `/p${index}/*`, kind, policies, requestPath: `/p${index}/items/1`, upstreamPath: `${base}/items/1` };
    case 'exact':
      return { index, id: `r-${index}`, path: `/e${index}/status`, kind, policies, requestPath: `/e${index}/status`, upstreamPath: base };
    case 'wildcard':
      return { index, id: `r-${index}`, path: `/w${index}/*/items`, kind, policies, requestPath: `/w${index}/abc/items`, upstreamPath: `${base}/abc/items` };
  }
}

function policyLines(set: ManyRoutesPolicySet, rateLimit: { max: number; windowMs: number }): string[] {
  const limit = [`    rateLimit: { enabled: true, max: ${rateLimit.max}, windowMs: ${rateLimit.windowMs}, strategy: token-bucket, scope: ip }`];
  const breaker = ['    circuitBreaker: { enabled: true, threshold: 50, timeout: 30000, volumeThreshold: 20 }'];
  const headers = [
    '    headers:',
    '      request: { set: { x-request-id: "${requestId}", x-route: "${route}" } }',
    '      response: { set: { x-served-by: gateway }, remove: [server] }',
  ];
  const cache = ['    cache: { enabled: true, ttl: 60000 }'];
  switch (set) {
    case 'none': return [];
    case 'rate-limit': return limit;
    case 'breaker-headers': return [...breaker, ...headers];
    case 'cache': return cache;
    case 'all': return [...limit, ...breaker, ...headers, ...cache];
  }
}

/** The YAML lines of one route (a list entry under `routes:`). */
function routeLines(route: ManyRoutesRoute, origin: string, changed: ReadonlySet<number> | undefined, rateLimit: { max: number; windowMs: number }): string[] {
  const upstreamBase = `${origin}/r/${route.index}${changed?.has(route.index) ? '/changed' : ''}`;
  return [
    `  - id: ${route.id}`,
    `    path: ${route.path}`,
    `    upstream: ${upstreamBase}`,
    ...(route.kind === 'exact' ? ['    methods: [GET]'] : []),
    ...policyLines(route.policies, rateLimit),
  ];
}

/** The whole proxy.yml (version, a `proxy:` block on 127.0.0.1 and the routes) and a description of every route. */
export function manyRoutesConfig(options: ManyRoutesOptions): ManyRoutesConfig {
  if (!Number.isSafeInteger(options.count) || options.count < 1) throw new RangeError(`count must be a whole number above 0, got ${options.count}`);
  const origin = options.upstreamOrigin.replace(/\/+$/, '');
  const rateLimit = { max: options.rateLimitMax ?? 1_000_000, windowMs: options.rateLimitWindowMs ?? 60_000 };
  const routes: ManyRoutesRoute[] = [];
  const lines = ['version: "1.0.0"', 'proxy:', '  host: 127.0.0.1', '  port: 8080', 'routes:'];
  for (let i = 0; i < options.count; i += 1) {
    const route = manyRoutesRoute(i, options.changed);
    routes.push(route);
    lines.push(...routeLines(route, origin, options.changed, rateLimit));
  }
  lines.push('');
  return { routes, yaml: lines.join('\n') };
}
