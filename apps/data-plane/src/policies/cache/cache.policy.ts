import type { OutgoingHttpHeaders } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import type { Route } from '@gateway/route-model';
import type { Exchange } from '../../engine/exchange';
import { presentedCredential } from '../../engine/presented-credential';
import type { LocalReply, PolicyFactory, ProxiedResponse, RequestHookResult } from '../../engine/policy';
import { storableTtl } from './cache-control';
import { CACHE_LOOKUPS, RESPONSE_CACHE } from './cache-services';
import type { CacheEntry, ResponseCache } from './response-cache';

/** What a miss that leads a flight must remember until its response is stored or dropped. */
interface Lead {
  key: string;
  settled: boolean;
}

/** Headers the cache never stores: recomputed per hit, or meaningful for one response only. */
const NOT_STORED = ['age', 'x-cache', 'x-correlation-id', 'date'];

/** Rough size of what an entry holds besides its body (keys, header strings). */
function headerBytes(headers: OutgoingHttpHeaders): number {
  let n = 64;
  for (const name in headers) n += name.length + String(headers[name]).length + 16;
  return n;
}

function varyNames(headers: OutgoingHttpHeaders): string[] | '*' | undefined {
  const raw = headers['vary'];
  if (raw === undefined) return undefined;
  const names = (Array.isArray(raw) ? raw.join(',') : String(raw))
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== '');
  if (names.includes('*')) return '*';
  return names.length === 0 ? undefined : names;
}

/** Everything about a route that changes what the upstream answers or how it is stored. */
function fingerprint(route: Route): string {
  const { createdAt: _c, updatedAt: _u, description: _d, tags: _t, enabled: _e, ...rest } = route;
  return JSON.stringify(rest);
}

/** Collects the body as it streams to the client; stores it once the upstream response completed. */
class CaptureStream extends Transform {
  private chunks: Buffer[] | undefined = [];
  private size = 0;

  constructor(
    private readonly limit: number,
    private readonly onDone: (body: Buffer | undefined) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.chunks !== undefined) {
      this.size += chunk.length;
      if (this.size > this.limit) this.chunks = undefined;
      else this.chunks.push(chunk);
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.onDone(this.chunks === undefined ? undefined : Buffer.concat(this.chunks, this.size));
    callback();
  }
}

/**
 * `cache` (spec 2.1): an in-memory response cache per route, checked after authentication.
 * Safe by default: only GET and HEAD; never a request with `Authorization` unless
 * `cacheAuthorized`; never a response with `no-store`, `private`, `no-cache`, `Set-Cookie` or
 * `Vary: *`; the upstream's `Vary` is honoured; a shorter `max-age`/`s-maxage` wins over `ttl`.
 * Concurrent misses for one key go upstream once: followers wait for the leader's response.
 * A hit replays the stored upstream response through the response phase (header rules and body
 * transforms apply as on a miss) with `X-Cache: HIT` and `Age`.
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
    if (!config.enabled) return null;
    const routeId = route.id;
    const lookups = env.services.metrics.counter(CACHE_LOOKUPS);
    const [hits, misses, bypasses] = [lookups.labels(routeId, 'HIT'), lookups.labels(routeId, 'MISS'), lookups.labels(routeId, 'BYPASS')];
    const ttl = config.ttl;
    const varyBy = new Set(config.varyBy ?? ['method', 'path', 'query']);
    const byMethod = varyBy.has('method');
    const byPath = varyBy.has('path');
    const byQuery = varyBy.has('query');
    const statuses = new Set(config.cacheableStatuses ?? [200]);
    const cacheAuthorized = config.cacheAuthorized === true;
    const leads = new WeakMap<Exchange, Lead>();

    // HEAD is answered from the GET entry (same headers, no body), so both share the key.
    const keyOf = (exchange: Exchange): string =>
      `${routeId}\u0000${byMethod ? 'GET' : ''}\u0000${byPath ? exchange.path : ''}\u0000${byQuery ? exchange.query : ''}`;

    const hit = (exchange: Exchange, entry: CacheEntry): LocalReply => {
      hits.inc();
      exchange.cacheHit = true;
      const age = entry.upstreamAge + Math.floor((cache.now() - entry.storedAt) / 1000);
      return { kind: 'response', status: entry.status, headers: { ...entry.headers, 'x-cache': 'HIT', age: String(age) }, body: entry.body, replay: true };
    };

    const miss = (exchange: Exchange, lead: boolean, key: string): undefined => {
      misses.inc();
      exchange.addResponseHeader('x-cache', 'MISS');
      if (lead) leads.set(exchange, { key, settled: false });
      return undefined;
    };

    const lookup = (exchange: Exchange, key: string): RequestHookResult | Promise<RequestHookResult> => {
      const entry = cache.get(key, exchange.req.headers);
      if (entry !== undefined) return hit(exchange, entry);
      // A HEAD miss has no body to store: it goes upstream on its own.
      if (exchange.method === 'HEAD') return miss(exchange, false, key);
      if (cache.lead(key)) return miss(exchange, true, key);
      return new Promise<RequestHookResult>((resolve) => {
        cache.wait(key, (stored) => {
          if (exchange.clientAborted) resolve(undefined);
          else if (!stored) resolve(miss(exchange, false, key));
          else resolve(lookup(exchange, key));
        });
      });
    };

    const settle = (lead: Lead, stored: boolean): void => {
      if (lead.settled) return;
      lead.settled = true;
      cache.release(lead.key, stored);
    };

    const store = (exchange: Exchange, lead: Lead, response: ProxiedResponse): void => {
      if (!statuses.has(response.status) || response.headers['set-cookie'] !== undefined || response.upstream === undefined) return settle(lead, false);
      const lifetime = storableTtl(response.headers, ttl);
      const vary = varyNames(response.headers);
      const declared = response.headers['content-length'];
      if (lifetime <= 0 || vary === '*' || (declared !== undefined && Number(declared) > cache.maxEntryBytes)) return settle(lead, false);
      const headers: OutgoingHttpHeaders = { ...response.headers };
      for (const name of NOT_STORED) delete headers[name];
      const upstreamAge = Number(response.headers['age'] ?? 0);
      const requestHeaders = exchange.req.headers;
      const varied = vary?.map((name): [string, string | undefined] => {
        const value = requestHeaders[name];
        return [name, Array.isArray(value) ? value.join(', ') : value];
      });
      const upstream = response.upstream;
      const capture = new CaptureStream(cache.maxEntryBytes, (body) => {
        if (body === undefined || !upstream.complete) return settle(lead, false);
        headers['content-length'] = body.length;
        const storedAt = cache.now();
        const entry: CacheEntry = {
          status: response.status,
          headers,
          body,
          storedAt,
          expiresAt: storedAt + lifetime,
          upstreamAge: Number.isFinite(upstreamAge) && upstreamAge > 0 ? Math.floor(upstreamAge) : 0,
          vary: varied,
          size: body.length + headerBytes(headers) + lead.key.length,
        };
        settle(lead, cache.set(routeId, lead.key, entry));
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
          bypasses.inc();
          exchange.addResponseHeader('x-cache', 'BYPASS');
          return undefined;
        }
        return lookup(exchange, keyOf(exchange));
      },
      onResponse(exchange, response) {
        const lead = leads.get(exchange);
        if (lead !== undefined) store(exchange, lead, response);
      },
      onComplete(exchange) {
        const lead = leads.get(exchange);
        if (lead === undefined) return;
        leads.delete(exchange);
        // The upstream failed, the client left or the body was cut: followers go upstream themselves.
        settle(lead, false);
      },
    };
  },
};
