import type { OutgoingHttpHeaders } from 'node:http';
import type { Route } from '@gateway/route-model';
import { GatewayError } from '../../engine/error-catalogue';
import type { Exchange } from '../../engine/exchange';
import { copyEndToEndHeaders } from '../../engine/hop-by-hop';
import { presentedCredential } from '../../engine/presented-credential';
import type { LocalReply, PolicyFactory, ProxiedResponse, RequestHookResult, UpstreamCall, UpstreamCallback } from '../../engine/policy';
import { fetchInBackground } from './background-fetch';
import { hasValidator } from './cache-control';
import { CACHE_LOOKUPS, RESPONSE_CACHE } from './cache-services';
import { CaptureStream } from './capture-stream';
import { clientHasStored, refreshedHeaders, setRevalidationHeaders } from './conditional-request';
import { sameOriginPath, UNSAFE_METHODS } from './invalidation';
import { replayedResponse } from './replayed-response';
import type { UpstreamResponse } from '../../engine/upstream-response';
import type { CacheEntry, ResponseCache } from './response-cache';
import { storableHead, toEntry, type StoreRules } from './stored-response';

/** How a request was answered, as `X-Cache` and the lookups counter's `result` say it. */
type CacheResult = 'HIT' | 'MISS' | 'BYPASS' | 'STALE' | 'REVALIDATED';

/** What an exchange that went on towards the upstream must remember until it is answered. */
interface Pending {
  readonly key: string;
  /** Leads the key's flight: stores what comes back and releases the requests waiting for it. */
  readonly lead: boolean;
  settled: boolean;
  /** The stale entry found: revalidated, served when the upstream fails, or served while refreshing. */
  readonly stale: CacheEntry | undefined;
  /** stale-while-revalidate: answered with `stale` at once while a background request refreshes it. */
  readonly refresh: boolean;
  /** Answered from the cache by the upstream wrapper: nothing to store. */
  answered: boolean;
}

/** RFC 5861 "error": what stale-if-error covers. */
const ERROR_STATUSES = new Set([500, 502, 503, 504]);

function upstreamFailed(error: Error | null, response: UpstreamResponse | null): boolean {
  return error !== null || ERROR_STATUSES.has(response?.statusCode ?? 502);
}

/** Everything about a route that changes what the upstream answers or how it is stored. */
function fingerprint(route: Route): string {
  const { createdAt: _c, updatedAt: _u, description: _d, tags: _t, enabled: _e, ...rest } = route;
  return JSON.stringify(rest);
}

function endToEnd(message: UpstreamResponse): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  copyEndToEndHeaders(message.headers, headers);
  return headers;
}

/**
 * `cache` (spec 2.1, RFC 9111): an in-memory response cache per route, checked after
 * authentication. Safe by default: only GET and HEAD; never a request with a credential unless
 * `cacheAuthorized`; never a response with `no-store`, `private`, `Set-Cookie` or `Vary: *`, nor
 * a 502/503/504 the retry policy gave up on; the upstream's `Vary` is honoured; a shorter
 * `s-maxage`/`max-age`/`Expires` wins over `ttl`. A stale entry with a validator is revalidated
 * with a conditional request and a 304 refreshes it; `staleWhileRevalidate` answers stale while
 * one background request refreshes; `staleIfError` answers stale when the upstream fails;
 * `must-revalidate` forbids both (a failed revalidation is a 504). A successful POST, PUT, PATCH
 * or DELETE invalidates what was stored for its path and its same-origin `Location`.
 * Concurrent misses for one key go upstream once: followers wait for the leader's response.
 * A stored response is replayed through the response phase (header rules and body transforms
 * apply as on a miss) with `X-Cache` and `Age`; a client conditional it satisfies gets a 304.
 */
export const cachePolicy: PolicyFactory = {
  key: 'cache',
  scope: 'route',
  configures: 'cache',
  order: 150,
  services: [RESPONSE_CACHE],
  metrics: [CACHE_LOOKUPS],
  create: (route, env) => {
    const config = route?.cache;
    if (route === undefined || config === undefined) return null;
    const cache: ResponseCache = env.services.provided.get(RESPONSE_CACHE);
    cache.retain(route.id, config.enabled ? fingerprint(route) : 'disabled');
    // A route with its cache switched off still invalidates what other routes stored for its paths.
    if (!config.enabled) return { onResponse: (exchange, response) => invalidate(cache, exchange, response) };
    const routeId = route.id;
    const lookups = env.services.metrics.counter(CACHE_LOOKUPS);
    const counters: Record<CacheResult, { inc(): void }> = {
      HIT: lookups.labels(routeId, 'HIT'),
      MISS: lookups.labels(routeId, 'MISS'),
      BYPASS: lookups.labels(routeId, 'BYPASS'),
      STALE: lookups.labels(routeId, 'STALE'),
      REVALIDATED: lookups.labels(routeId, 'REVALIDATED'),
    };
    const swrMs = (config.staleWhileRevalidate ?? 0) * 1000;
    const sieMs = (config.staleIfError ?? 0) * 1000;
    const rules: StoreRules = {
      ttl: config.ttl,
      statuses: new Set(config.cacheableStatuses ?? [200]),
      staleMs: Math.max(swrMs, sieMs),
      maxEntryBytes: cache.maxEntryBytes,
    };
    const varyBy = new Set(config.varyBy ?? ['method', 'path', 'query']);
    const byMethod = varyBy.has('method');
    const byPath = varyBy.has('path');
    const byQuery = varyBy.has('query');
    const cacheAuthorized = config.cacheAuthorized === true;
    const deadlines = env.services.deadlines;
    const pendings = new WeakMap<Exchange, Pending>();

    // HEAD is answered from the GET entry (same headers, no body), so both share the key.
    const keyOf = (exchange: Exchange): string =>
      `${routeId}\u0000${byMethod ? 'GET' : ''}\u0000${byPath ? exchange.path : ''}\u0000${byQuery ? exchange.query : ''}`;

    const mark = (exchange: Exchange, result: CacheResult): void => {
      counters[result].inc();
      exchange.addResponseHeader('x-cache', result);
    };

    /** The stored response as this client gets it: a 304 when its own conditional already holds it. */
    const fromEntry = (exchange: Exchange, entry: CacheEntry, result: Exclude<CacheResult, 'MISS' | 'BYPASS'>): { status: number; headers: OutgoingHttpHeaders; body: Buffer | undefined } => {
      counters[result].inc();
      exchange.cacheHit = true;
      const age = entry.upstreamAge + Math.floor((cache.now() - entry.storedAt) / 1000);
      const headers: OutgoingHttpHeaders = { ...entry.headers, 'x-cache': result, age: String(age) };
      if (entry.status >= 200 && entry.status < 300 && clientHasStored(exchange.req.headers, entry.headers)) {
        delete headers['content-length'];
        return { status: 304, headers, body: undefined };
      }
      return { status: entry.status, headers, body: entry.body };
    };

    const replay = (exchange: Exchange, entry: CacheEntry, result: 'HIT' | 'STALE'): LocalReply => ({ kind: 'response', ...fromEntry(exchange, entry, result), replay: true });

    /** Answers from the upstream wrapper, where only an upstream message can answer. */
    const answer = (exchange: Exchange, done: UpstreamCallback, entry: CacheEntry, result: 'STALE' | 'REVALIDATED'): void => {
      const reply = fromEntry(exchange, entry, result);
      done(null, replayedResponse(exchange, reply.status, reply.headers, reply.body));
    };

    const settle = (pending: Pending, stored: boolean): void => {
      if (pending.settled || !pending.lead) return;
      pending.settled = true;
      cache.release(pending.key, stored);
    };

    const proceed = (exchange: Exchange, key: string, lead: boolean, stale: CacheEntry | undefined): undefined => {
      // With a stale entry, the upstream wrapper decides: MISS, REVALIDATED or STALE.
      if (stale === undefined) mark(exchange, 'MISS');
      if (lead || stale !== undefined) pendings.set(exchange, { key, lead, settled: false, stale, refresh: false, answered: false });
      return undefined;
    };

    const follow = (exchange: Exchange, key: string): Promise<RequestHookResult> =>
      new Promise<RequestHookResult>((resolve) => {
        cache.wait(key, (stored) => {
          if (exchange.clientAborted) resolve(undefined);
          else if (stored) resolve(lookup(exchange, key));
          else {
            // Not stored: go upstream alone, without queueing again (an uncacheable answer must not
            // serialize requests), with the entry as it is now (a write may have invalidated it).
            const current = cache.get(key, exchange.req.headers);
            resolve(current !== undefined && current.expiresAt > cache.now() ? replay(exchange, current, 'HIT') : proceed(exchange, key, false, current));
          }
        });
      });

    const lookup = (exchange: Exchange, key: string): RequestHookResult | Promise<RequestHookResult> => {
      const entry = cache.get(key, exchange.req.headers);
      const head = exchange.method === 'HEAD';
      if (entry === undefined) {
        // A HEAD miss has no body to store: it goes upstream on its own.
        if (head) return proceed(exchange, key, false, undefined);
        return cache.lead(key, exchange.path) ? proceed(exchange, key, true, undefined) : follow(exchange, key);
      }
      const now = cache.now();
      if (entry.expiresAt > now) return replay(exchange, entry, 'HIT');
      if (!entry.mustRevalidate && now < entry.expiresAt + swrMs) {
        if (!cache.lead(key, exchange.path)) return replay(exchange, entry, 'STALE');
        // The upstream wrapper answers stale and refreshes, once the request phase prepared the upstream request.
        pendings.set(exchange, { key, lead: true, settled: false, stale: entry, refresh: true, answered: false });
        return undefined;
      }
      if (head) return proceed(exchange, key, false, entry);
      return cache.lead(key, exchange.path) ? proceed(exchange, key, true, entry) : follow(exchange, key);
    };

    /** A 304 for a stored response: its headers updated and its lifetime restarted (RFC 9111 4.3.4). */
    const refreshEntry = (exchange: Exchange, key: string, stale: CacheEntry, notModified: UpstreamResponse): { entry: CacheEntry; stored: boolean } => {
      const fields = endToEnd(notModified);
      const headers = refreshedHeaders(stale.headers, fields);
      const now = cache.now();
      const stored = storableHead(stale.status, { ...headers, age: fields['age'], date: fields['date'] }, rules, 1, now);
      if (stored === undefined) {
        cache.delete(key);
        return { entry: { ...stale, headers }, stored: false };
      }
      const entry = toEntry(stored, stale.body, exchange.req.headers, stale.path, key, rules, now);
      return { entry, stored: cache.set(routeId, key, entry) };
    };

    /** stale-while-revalidate: one background request, whose answer replaces or refreshes the entry. */
    const refreshInBackground = (client: Exchange, pending: Pending, stale: CacheEntry, next: UpstreamCall): void => {
      const headers = { ...client.upstreamHeaders };
      const conditional = hasValidator(stale.headers);
      if (conditional) setRevalidationHeaders(headers, stale.headers);
      fetchInBackground(client, next, headers, cache.maxEntryBytes, (outcome, exchange) => {
        // The timeout policy cancels an attempt's deadline when its exchange completes; this one has no client to complete.
        deadlines.cancel(exchange);
        let stored = false;
        if (outcome !== undefined) {
          const { response, body } = outcome;
          const status = response.statusCode ?? 502;
          if (conditional && status === 304) stored = refreshEntry(client, pending.key, stale, response).stored;
          else {
            const head = storableHead(status, endToEnd(response), rules, exchange.attempts, cache.now());
            if (head !== undefined) stored = cache.set(routeId, pending.key, toEntry(head, body, client.req.headers, stale.path, pending.key, rules, cache.now()));
            // A definite answer that is not storable retires the stale entry; a failure keeps it.
            else if (!ERROR_STATUSES.has(status)) cache.delete(pending.key);
          }
        }
        settle(pending, stored);
      });
    };

    const store = (exchange: Exchange, pending: Pending, response: ProxiedResponse): void => {
      const upstream = response.upstream;
      const head = upstream === undefined ? undefined : storableHead(response.status, response.headers, rules, exchange.attempts, cache.now());
      if (upstream === undefined || head === undefined) {
        // The upstream's new answer replaces a stale entry even when it cannot be stored itself.
        if (pending.stale !== undefined && !ERROR_STATUSES.has(response.status)) cache.delete(pending.key);
        return settle(pending, false);
      }
      const requestHeaders = exchange.req.headers;
      const path = exchange.path;
      const capture = new CaptureStream(cache.maxEntryBytes, (body) => {
        if (body === undefined || !upstream.complete) return settle(pending, false);
        settle(pending, cache.set(routeId, pending.key, toEntry(head, body, requestHeaders, path, pending.key, rules, cache.now())));
      });
      const body = response.body;
      if (Buffer.isBuffer(body)) {
        capture.end(body);
        response.body = body;
        return;
      }
      body.once('error', (error) => capture.destroy(error));
      response.body = body.pipe(capture);
    };

    return {
      onRequest(exchange) {
        const method = exchange.method;
        if ((method !== 'GET' && method !== 'HEAD') || (!cacheAuthorized && presentedCredential(exchange.req.headers) !== undefined)) {
          mark(exchange, 'BYPASS');
          return undefined;
        }
        return lookup(exchange, keyOf(exchange));
      },
      wrapUpstream: (next) => (exchange, done) => {
        const pending = pendings.get(exchange);
        const stale = pending?.stale;
        if (pending === undefined || stale === undefined) {
          next(exchange, done);
          return;
        }
        if (pending.refresh) {
          // The flight now belongs to the background request.
          pendings.delete(exchange);
          refreshInBackground(exchange, pending, stale, next);
          answer(exchange, done, stale, 'STALE');
          return;
        }
        const conditional = pending.lead && hasValidator(stale.headers);
        if (conditional) setRevalidationHeaders(exchange.upstreamHeaders, stale.headers);
        next(exchange, (error, response) => {
          if (conditional && response !== null && response.statusCode === 304) {
            response.resume();
            const refreshed = refreshEntry(exchange, pending.key, stale, response);
            pending.answered = true;
            settle(pending, refreshed.stored);
            answer(exchange, done, refreshed.entry, 'REVALIDATED');
            return;
          }
          if (upstreamFailed(error, response) && !exchange.clientAborted) {
            // Only the entry the cache still holds: a write may have invalidated it meanwhile.
            if (!stale.mustRevalidate && cache.now() < stale.expiresAt + sieMs && cache.holds(pending.key, stale)) {
              response?.resume();
              pending.answered = true;
              settle(pending, false);
              answer(exchange, done, stale, 'STALE');
              return;
            }
            // RFC 9111 5.2.2.2: a cache that cannot reach the origin answers 504, never the stale response.
            if (stale.mustRevalidate && error !== null) {
              mark(exchange, 'MISS');
              done(new GatewayError('REVALIDATION_FAILED', undefined, { cause: error }), null);
              return;
            }
          }
          mark(exchange, 'MISS');
          done(error, response);
        });
      },
      onResponse(exchange, response) {
        if (UNSAFE_METHODS.has(exchange.method)) {
          invalidate(cache, exchange, response, keyOf(exchange));
          return;
        }
        const pending = pendings.get(exchange);
        if (pending !== undefined && pending.lead && !pending.answered) store(exchange, pending, response);
      },
      onComplete(exchange) {
        const pending = pendings.get(exchange);
        if (pending === undefined) return;
        pendings.delete(exchange);
        // The upstream failed, the client left or the body was cut: followers go upstream themselves.
        settle(pending, false);
      },
    };
  },
};

/**
 * RFC 9111 4.4: a non-error answer to an unsafe method invalidates what was stored for the request's
 * path (every route, query and variant) and for a same-origin `Location` / `Content-Location`.
 */
function invalidate(cache: ResponseCache, exchange: Exchange, response: ProxiedResponse, ownKey?: string): void {
  if (!UNSAFE_METHODS.has(exchange.method) || response.status >= 400) return;
  cache.invalidatePath(exchange.path);
  // On a route whose `varyBy` leaves the path out, the request's key holds an entry another path stored.
  if (ownKey !== undefined) cache.delete(ownKey);
  for (const name of ['location', 'content-location']) {
    const path = sameOriginPath(exchange, response.headers[name]);
    if (path !== undefined) cache.invalidatePath(path);
  }
}
