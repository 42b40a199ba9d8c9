import type { OutgoingHttpHeaders } from 'node:http';

/** How a storable response may be reused (RFC 9111 4.2, 5.2.2). */
export interface Freshness {
  /** ms the response stays fresh once stored: at most the route's ttl; 0 when every reuse must be revalidated. */
  readonly freshMs: number;
  /**
   * `must-revalidate`, `proxy-revalidate`, `s-maxage` (which implies proxy-revalidate, 5.2.2.10) or
   * `no-cache`: never served stale (no stale-while-revalidate, no stale-if-error), and a failed
   * revalidation answers 504 (5.2.2.2).
   */
  readonly mustRevalidate: boolean;
}

function headerText(value: OutgoingHttpHeaders[string]): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** True when the response carries a validator (ETag or Last-Modified) a conditional request can use. */
export function hasValidator(headers: OutgoingHttpHeaders): boolean {
  return headers['etag'] !== undefined || headers['last-modified'] !== undefined;
}

/**
 * Seconds the upstream says the response is fresh for, before its own `Age`: `s-maxage` (shared
 * caches), else `max-age`, else `Expires` minus `Date` (4.2.1). An invalid value means already
 * stale (5.2.2.1, 5.3). Undefined when the response names no lifetime.
 */
function upstreamLifetime(headers: OutgoingHttpHeaders, maxAge: number | undefined, sMaxAge: number | undefined, now: number): number | undefined {
  if (sMaxAge !== undefined) return sMaxAge;
  if (maxAge !== undefined) return maxAge;
  const expires = headerText(headers['expires']);
  if (expires === undefined) return undefined;
  const expiresAt = Date.parse(expires);
  if (Number.isNaN(expiresAt)) return 0;
  const dated = Date.parse(headerText(headers['date']) ?? '');
  return (expiresAt - (Number.isNaN(dated) ? now : dated)) / 1000;
}

/**
 * Whether and how a shared cache may keep a response, given the route's ttl (ms); undefined when
 * it must not be stored. `no-store` and `private` are never stored. The upstream's lifetime
 * (`s-maxage`, `max-age`, `Expires`) minus its `Age` wins when shorter than the route's ttl; a
 * longer one does not extend it. A response already stale on arrival, or marked `no-cache`, is
 * kept only when it has a validator, to be revalidated with a conditional request before any use.
 */
export function responseFreshness(headers: OutgoingHttpHeaders, routeTtl: number, now: number): Freshness | undefined {
  const value = headerText(headers['cache-control'])?.toLowerCase() ?? '';
  let maxAge: number | undefined;
  let sMaxAge: number | undefined;
  let noCache = false;
  let mustRevalidate = false;
  for (const part of value.split(',')) {
    const directive = part.trim();
    if (directive === '') continue;
    const eq = directive.indexOf('=');
    const name = eq === -1 ? directive : directive.slice(0, eq).trim();
    if (name === 'no-store' || name === 'private') return undefined;
    if (name === 'no-cache') noCache = true;
    else if (name === 'must-revalidate' || name === 'proxy-revalidate') mustRevalidate = true;
    else if (name === 'max-age' || name === 's-maxage') {
      const raw = eq === -1 ? '' : directive.slice(eq + 1).trim().replace(/^"|"$/g, '');
      const seconds = /^\d+$/.test(raw) ? Number(raw) : 0;
      if (name === 'max-age') maxAge = seconds;
      else {
        sMaxAge = seconds;
        mustRevalidate = true;
      }
    }
  }
  const lifetime = upstreamLifetime(headers, maxAge, sMaxAge, now);
  const age = Number(headerText(headers['age']) ?? 0);
  const remainingMs = lifetime === undefined ? routeTtl : (lifetime - (Number.isFinite(age) && age > 0 ? age : 0)) * 1000;
  const freshMs = noCache ? 0 : Math.max(0, Math.min(routeTtl, remainingMs));
  if (freshMs === 0 && !hasValidator(headers)) return undefined;
  return { freshMs, mustRevalidate: mustRevalidate || noCache };
}
