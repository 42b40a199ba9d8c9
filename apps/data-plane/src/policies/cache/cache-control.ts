import type { OutgoingHttpHeaders } from 'node:http';

/**
 * How long a shared cache may keep a response, in ms, given the route's ttl: 0 when it must not be
 * stored. `no-store`, `private` and `no-cache` are never stored; `s-maxage` (shared caches) or else
 * `max-age`, minus the upstream's `Age`, wins when shorter than the route's ttl (RFC 9111 5.2.2);
 * a longer one does not extend the route's ttl.
 */
export function storableTtl(headers: OutgoingHttpHeaders, routeTtl: number): number {
  const raw = headers['cache-control'];
  if (raw === undefined) return routeTtl;
  const value = (Array.isArray(raw) ? raw.join(',') : String(raw)).toLowerCase();
  let maxAge: number | undefined;
  let sMaxAge: number | undefined;
  for (const part of value.split(',')) {
    const directive = part.trim();
    const eq = directive.indexOf('=');
    const name = eq === -1 ? directive : directive.slice(0, eq).trim();
    if (name === 'no-store' || name === 'private' || name === 'no-cache') return 0;
    if (eq === -1) continue;
    const seconds = Number(directive.slice(eq + 1).trim().replace(/^"|"$/g, ''));
    if (!Number.isFinite(seconds) || seconds < 0) return 0;
    if (name === 'max-age') maxAge = seconds;
    else if (name === 's-maxage') sMaxAge = seconds;
  }
  const freshness = sMaxAge ?? maxAge;
  if (freshness === undefined) return routeTtl;
  const age = Number(headers['age'] ?? 0);
  const remainingMs = (freshness - (Number.isFinite(age) && age > 0 ? age : 0)) * 1000;
  return remainingMs <= 0 ? 0 : Math.min(routeTtl, remainingMs);
}
