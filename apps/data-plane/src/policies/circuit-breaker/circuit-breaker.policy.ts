import type { CircuitBreakerConfig, ProxyConfig, Route, UpstreamDefinition } from '@gateway/route-model';
import { isGatewayError } from '../../engine/error-catalogue';
import type { Exchange } from '../../engine/exchange';
import type { LocalReply, PolicyEnvironment, PolicyFactory } from '../../engine/policy';
import { eachInChunks } from '../../engine/time-slices';
import { BREAKERS, routeBreakerName } from './breaker-registry';
import type { BreakerSettings, CircuitBreaker } from './circuit-breaker';

/** Spec 8 defaults of the upstream-level breaker, also used for a route breaker's HALF_OPEN. */
export const BREAKER_DEFAULTS = { failureThreshold: 5, successThreshold: 2, timeout: 60_000, halfOpenRequests: 3 } as const;
const DEFAULT_ERROR_STATUSES = [500, 502, 503, 504];
/** Rolling window of a route breaker when `resetTimeout` is not given (the spec 2.5 example). */
const DEFAULT_WINDOW_MS = 60_000;

/** Engine errors that are the upstream's fault; others (413, client gone) say nothing about it. */
const FAILURE_CODES = new Set(['UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT', 'UPSTREAM_CONNECT_TIMEOUT']);

function routeSettings(config: CircuitBreakerConfig): BreakerSettings {
  return {
    kind: 'route',
    openMs: config.timeout,
    halfOpenRequests: BREAKER_DEFAULTS.halfOpenRequests,
    successThreshold: BREAKER_DEFAULTS.successThreshold,
    thresholdPercent: config.threshold,
    volumeThreshold: config.volumeThreshold,
    windowMs: config.resetTimeout ?? DEFAULT_WINDOW_MS,
    failureThreshold: 0,
  };
}

function upstreamSettings(config: NonNullable<UpstreamDefinition['circuitBreaker']>): BreakerSettings {
  return {
    kind: 'upstream',
    openMs: config.timeout ?? BREAKER_DEFAULTS.timeout,
    halfOpenRequests: config.halfOpenRequests ?? BREAKER_DEFAULTS.halfOpenRequests,
    successThreshold: config.successThreshold ?? BREAKER_DEFAULTS.successThreshold,
    thresholdPercent: 0,
    volumeThreshold: 0,
    windowMs: DEFAULT_WINDOW_MS,
    failureThreshold: config.failureThreshold ?? BREAKER_DEFAULTS.failureThreshold,
  };
}

/** The `proxy.yml` upstream behind a route, when it declares an enabled breaker. */
function upstreamBreakerOf(route: Route, env: PolicyEnvironment): UpstreamDefinition | undefined {
  const upstream = route.upstreamName === undefined ? undefined : env.upstreams.get(route.upstreamName);
  return upstream?.circuitBreaker?.enabled === true ? upstream : undefined;
}

function compileOpenReply(config: CircuitBreakerConfig | undefined): (breaker: CircuitBreaker) => LocalReply {
  const fallback = config?.fallback;
  if (fallback === undefined) return (breaker) => ({ kind: 'error', code: 'CIRCUIT_OPEN', retryAfter: breaker.retryAfterSeconds() });
  const reply: LocalReply = { kind: 'response', status: fallback.status, headers: { ...fallback.headers }, body: fallback.body ?? '' };
  return () => reply;
}

/** The breakers a route's traffic goes through (its own, its upstream's), made or found and bound to the route; undefined when none. */
function routeBreakers(route: Route, env: PolicyEnvironment): CircuitBreaker[] | undefined {
  const own = route.circuitBreaker?.enabled === true ? route.circuitBreaker : undefined;
  const upstream = upstreamBreakerOf(route, env);
  if (own === undefined && upstream === undefined) return undefined;
  const registry = env.services.state.get(BREAKERS);
  const breakers: CircuitBreaker[] = [];
  if (own !== undefined) breakers.push(registry.ensure(routeBreakerName(route.id), routeSettings(own)));
  if (upstream !== undefined) breakers.push(registry.ensure(upstream.name, upstreamSettings(upstream.circuitBreaker as NonNullable<UpstreamDefinition['circuitBreaker']>)));
  registry.bindRoute(
    route.id,
    breakers.map((b) => b.name),
  );
  return breakers;
}

/**
 * `circuitBreaker` on a route (variant A) and on its `proxy.yml` upstream (spec 2.5, 3.1, 8).
 * The request phase refuses while OPEN (503 with `retryAfter`, or the configured fallback) so no
 * upstream call is made; the outermost upstream wrapper records one outcome per exchange, after
 * retries. Failures: the configured statuses (default 500, 502, 503, 504), connection errors and
 * timeouts.
 */
export const circuitBreakerPolicy: PolicyFactory = {
  key: 'circuit-breaker',
  scope: 'route',
  configures: 'circuitBreaker',
  order: 600,
  // From load on, not at the first request: the state gauge shows every breaker, and a hold set
  // through the control plane or a status asked for finds the route's breaker.
  prepare: (route, env) => {
    routeBreakers(route, env);
  },
  create: (route, env) => {
    if (route === undefined) return null;
    const breakers = routeBreakers(route, env);
    if (breakers === undefined) return null;
    const own = route.circuitBreaker?.enabled === true ? route.circuitBreaker : undefined;
    const upstream = upstreamBreakerOf(route, env);
    const failureStatuses = new Set(own?.errorStatuses ?? upstream?.circuitBreaker?.errorStatuses ?? DEFAULT_ERROR_STATUSES);
    const openReply = compileOpenReply(own);
    const single = breakers.length === 1 ? (breakers[0] as CircuitBreaker) : undefined;

    const record = (exchange: Exchange, failed: boolean | undefined): void => {
      for (const breaker of breakers) {
        if (failed === undefined) breaker.release(exchange);
        else breaker.record(exchange, failed);
      }
    };

    return {
      onRequest(exchange) {
        if (single !== undefined) return single.admit(exchange) ? undefined : openReply(single);
        for (let i = 0; i < breakers.length; i += 1) {
          const breaker = breakers[i] as CircuitBreaker;
          if (breaker.admit(exchange)) continue;
          for (let j = 0; j < i; j += 1) (breakers[j] as CircuitBreaker).release(exchange);
          return openReply(breaker);
        }
        return undefined;
      },
      wrapUpstream: (next) => (exchange, done) => {
        next(exchange, (error, response) => {
          if (error !== null) {
            // A client that left says nothing about the upstream.
            record(exchange, exchange.clientAborted || !isGatewayError(error) || !FAILURE_CODES.has(error.code) ? undefined : true);
          } else {
            record(exchange, failureStatuses.has(response?.statusCode ?? 502));
          }
          done(error, response);
        });
      },
      // Frees a HALF_OPEN slot of an exchange that never reached the upstream (no-op otherwise).
      onComplete: (exchange) => record(exchange, undefined),
    };
  },
  retain: retainAll,
  *release(left, config, env) {
    // An upstream's breaker is shared by every route to it: whether another route still passes
    // it, only a walk says. Not needed when the route under the same id kept that upstream.
    for (const gone of left.gone) {
      const upstream = gone.enabled ? upstreamBreakerOf(gone, env) : undefined;
      const live = upstream === undefined ? undefined : left.live(gone.id);
      if (upstream !== undefined && (live === undefined || upstreamBreakerOf(live, env) !== upstream)) {
        yield* retainAll(config, env);
        return;
      }
    }
    const registry = env.services.state.get(BREAKERS);
    yield* eachInChunks(left.gone, (gone) => {
      // A disabled route held nothing (it never loaded).
      if (!gone.enabled) return;
      const live = left.live(gone.id);
      if (gone.circuitBreaker?.enabled === true && live?.circuitBreaker?.enabled !== true) registry.drop(routeBreakerName(gone.id));
      if (live === undefined) registry.unbindRoute(gone.id);
    });
  },
};

/** Keeps the breakers of the configuration's enabled routes and their upstreams, a walk over every route (see PolicyFactory.retain). */
function* retainAll(config: ProxyConfig, env: PolicyEnvironment): Generator<void, void, void> {
  const names = new Set<string>();
  const routeIds = new Set<string>();
  yield* eachInChunks(config.routes, (route) => {
    if (!route.enabled) return;
    if (route.circuitBreaker?.enabled === true) names.add(routeBreakerName(route.id));
    const upstream = upstreamBreakerOf(route, env);
    if (upstream !== undefined) names.add(upstream.name);
    routeIds.add(route.id);
  });
  yield* env.services.state.get(BREAKERS).retainSteps(routeIds, names);
}
