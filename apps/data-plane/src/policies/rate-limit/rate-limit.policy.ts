import { STATUS_CODES } from 'node:http';
import type { RateLimitConfig } from '@gateway/route-model';
import type { Exchange } from '../../engine/exchange';
import { compileExchangeClientAddress } from '../../engine/exchange-client-address';
import type { LocalReply, PolicyFactory, RequestHookResult } from '../../engine/policy';
import { eachInChunks } from '../../engine/time-slices';
import { GenerationalCache } from '../../engine/generational-cache';
import { compileScopeKey, DERIVED_KEYS_PER_GENERATION } from './rate-limit-key';
import { RATE_LIMIT_HITS, RATE_LIMIT_STORE, type RateLimitDecision, type RateLimitRule } from './rate-limit-store';
import { withRateLimitHeaders } from './rate-limit-headers';
import { RATE_LIMIT_USAGE } from './rate-limit-usage';

/** Store key of one counted client: the same string in memory and in Redis (docs/resilience.md). */
export function rateLimitKey(routeId: string, rule: RateLimitRule, scopeKey: string): string {
  return `rl:${routeId}:${rule.algorithm}:${rule.windowMs}:${scopeKey}`;
}

function isPromise<T>(value: unknown): value is Promise<T> {
  return typeof value === 'object' && value !== null && typeof (value as Promise<T>).then === 'function';
}

/** Spec 7.3: whole seconds, at least 1 on a rejection. */
function retryAfterSeconds(decision: RateLimitDecision): number {
  return Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
}

/** The rejection: the catalogued 429, or the route's custom status/message/headers (spec 2.3 UI extras). */
function compileRejection(config: RateLimitConfig): (exchange: Exchange, retryAfter: number) => LocalReply {
  const custom = config.response;
  const headers = custom?.headers;
  if (custom?.status === undefined && custom?.message === undefined) {
    return (_exchange, retryAfter) => ({ kind: 'error', code: 'RATE_LIMITED', retryAfter, headers });
  }
  const status = custom.status ?? 429;
  const error = STATUS_CODES[status] ?? 'Too Many Requests';
  const message = custom.message ?? 'Rate limit exceeded';
  return (exchange, retryAfter) => {
    // Still a rate-limit rejection for telemetry, though the route words it its own way.
    exchange.errorCode = 'RATE_LIMITED';
    const body = JSON.stringify({ error, message, correlationId: exchange.correlationId, retryAfter });
    return {
      kind: 'response',
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'retry-after': String(retryAfter), ...headers },
      body,
    };
  };
}

interface Counted {
  key: string;
  decision: RateLimitDecision;
}

/**
 * `rateLimit` (spec 2.3): counts each request against its key in the store (memory, or Redis
 * through an adapter) before anything else of the route runs. Every response of the route carries
 * the spec 7.4 headers; a rejection is 429 with `retryAfter` and `Retry-After`.
 */
export const rateLimitPolicy: PolicyFactory = {
  key: 'rate-limit',
  scope: 'route',
  configures: 'rateLimit',
  order: 120,
  services: [RATE_LIMIT_STORE],
  metrics: [RATE_LIMIT_HITS],
  create: (route, env) => {
    const config = route?.rateLimit;
    if (route === undefined || config === undefined || !config.enabled) return null;
    const routeId = route.id;
    const rule: RateLimitRule = { algorithm: config.strategy, limit: config.max, windowMs: config.windowMs };
    const scopeKey = compileScopeKey(config, compileExchangeClientAddress(env.settings.trustedProxies));
    const store = env.services.provided.get(RATE_LIMIT_STORE);
    const hits = env.services.metrics.counter(RATE_LIMIT_HITS).labels(routeId);
    const usage = env.services.state.get(RATE_LIMIT_USAGE).forRoute(routeId);
    const reject = compileRejection(config);
    const limitHeader = String(config.max);
    const skipSuccessful = config.skipSuccessfulRequests === true;
    const skipFailed = config.skipFailedRequests === true;
    // Only routes that give requests back remember what each one took.
    const counted = skipSuccessful || skipFailed ? new WeakMap<Exchange, Counted>() : undefined;
    // The store key of a scope, made once while the scope recurs (GenerationalCache.getOrAdd says why).
    const keys = new GenerationalCache<string, string>(DERIVED_KEYS_PER_GENERATION);
    const keyOf = (scope: string): string => rateLimitKey(routeId, rule, scope);
    // The reset's text, made again only when its second changes: epoch seconds are no small
    // integer, and V8 formats such a number in its runtime every time (~1k instructions).
    let resetSeconds = -1;
    let resetText = '';

    const decide = (exchange: Exchange, scope: string, key: string, decision: RateLimitDecision): RequestHookResult => {
      const reset = Math.ceil(decision.resetAt / 1000);
      if (reset !== resetSeconds) {
        resetSeconds = reset;
        resetText = String(reset);
      }
      exchange.responseHeaders = withRateLimitHeaders(exchange.responseHeaders, limitHeader, String(decision.allowed ? decision.remaining : 0), resetText);
      usage.count(scope, decision.allowed);
      if (!decision.allowed) {
        hits.inc();
        return reject(exchange, retryAfterSeconds(decision));
      }
      if (counted !== undefined) counted.set(exchange, { key, decision });
      return undefined;
    };

    return {
      onRequest(exchange) {
        const scope = scopeKey(exchange);
        const key = keys.getOrAdd(scope, keyOf);
        const decision = store.consume(key, rule);
        if (isPromise<RateLimitDecision>(decision)) return decision.then((d) => decide(exchange, scope, key, d));
        return decide(exchange, scope, key, decision);
      },
      onComplete:
        counted === undefined
          ? undefined
          : (exchange) => {
              const entry = counted.get(exchange);
              if (entry === undefined) return;
              const failed = exchange.status >= 400;
              if ((failed && skipFailed) || (!failed && skipSuccessful)) store.refund(entry.key, rule, entry.decision);
            },
    };
  },
  *retain(config, env) {
    const routeIds = new Set<string>();
    yield* eachInChunks(config.routes, (route) => {
      if (route.rateLimit?.enabled === true) routeIds.add(route.id);
    });
    yield* env.services.state.get(RATE_LIMIT_USAGE).retainSteps(routeIds);
  },
  // Usage is per route id: a gone route's goes unless the route now under its id still limits.
  *release(left, _config, env) {
    const usage = env.services.state.get(RATE_LIMIT_USAGE);
    yield* eachInChunks(left.gone, (gone) => {
      if (left.current(gone.id)?.rateLimit?.enabled !== true) usage.forget(gone.id);
    });
  },
};
