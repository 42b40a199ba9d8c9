import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { hasValidator, responseFreshness, type Freshness } from './cache-control';
import type { CacheEntry } from './response-cache';

/** What a route's cache settings say about storing, computed once when the route loads. */
export interface StoreRules {
  /** ms, the route's ttl. */
  readonly ttl: number;
  readonly statuses: ReadonlySet<number>;
  /** ms a stale entry may still be served: the longer of stale-while-revalidate and stale-if-error. */
  readonly staleMs: number;
  readonly maxEntryBytes: number;
}

/** An upstream response head the cache may store, in its stored form. */
export interface StorableHead {
  readonly status: number;
  /** End-to-end headers without those recomputed per reply (NOT_STORED). */
  readonly headers: OutgoingHttpHeaders;
  readonly freshness: Freshness;
  /** Seconds the upstream said the response had already spent in caches. */
  readonly upstreamAge: number;
  readonly vary: string[] | undefined;
}

/** Headers the cache never stores: recomputed per hit, or meaningful for one response only. */
const NOT_STORED = ['age', 'x-cache', 'x-correlation-id', 'date'];

/**
 * What the gateway's retries gave up on (retry policy, decision 16): an answer about the upstream's
 * state at that moment, never a representation to replay.
 */
const RETRIED_STATUSES = new Set([502, 503, 504]);

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

/** Rough size of what an entry holds besides its body (keys, header strings). */
function headerBytes(headers: OutgoingHttpHeaders): number {
  let n = 64;
  for (const name in headers) n += name.length + String(headers[name]).length + 16;
  return n;
}

/**
 * The stored form of an upstream response head, or undefined when it must not be stored: a status
 * outside `cacheableStatuses`, a 502/503/504 the retry policy already retried, `Set-Cookie`,
 * `Vary: *`, a declared body over the per-entry limit, or Cache-Control/Expires forbidding it.
 */
export function storableHead(status: number, headers: OutgoingHttpHeaders, rules: StoreRules, attempts: number, now: number): StorableHead | undefined {
  if (!rules.statuses.has(status) || (attempts > 1 && RETRIED_STATUSES.has(status)) || headers['set-cookie'] !== undefined) return undefined;
  const vary = varyNames(headers);
  const declared = headers['content-length'];
  if (vary === '*' || (declared !== undefined && Number(declared) > rules.maxEntryBytes)) return undefined;
  const freshness = responseFreshness(headers, rules.ttl, now);
  if (freshness === undefined) return undefined;
  const stored: OutgoingHttpHeaders = { ...headers };
  for (const name of NOT_STORED) delete stored[name];
  const age = Number(headers['age'] ?? 0);
  return { status, headers: stored, freshness, upstreamAge: Number.isFinite(age) && age > 0 ? Math.floor(age) : 0, vary };
}

/**
 * The entry for a complete body. It stays fresh for `freshness.freshMs`, then is kept stale for as
 * long as it can serve: the stale windows and, when it has a
 * validator, one more route ttl in which a conditional request can refresh it for the price of a 304.
 */
export function toEntry(head: StorableHead, body: Buffer, requestHeaders: IncomingHttpHeaders, path: string, key: string, rules: StoreRules, now: number): CacheEntry {
  const headers: OutgoingHttpHeaders = { ...head.headers, 'content-length': body.length };
  const expiresAt = now + head.freshness.freshMs;
  // A must-revalidate entry is kept as long too: it is never served stale, but its failed revalidation answers 504.
  const keptStale = Math.max(rules.staleMs, hasValidator(headers) ? rules.ttl : 0);
  return {
    status: head.status,
    headers,
    body,
    storedAt: now,
    expiresAt,
    keepUntil: expiresAt + keptStale,
    mustRevalidate: head.freshness.mustRevalidate,
    path,
    upstreamAge: head.upstreamAge,
    vary: head.vary?.map((name): [string, string | undefined] => {
      const value = requestHeaders[name];
      return [name, Array.isArray(value) ? value.join(', ') : value];
    }),
    size: body.length + headerBytes(headers) + key.length,
  };
}
