import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { headersOf } from './raw-headers';

/**
 * Connection-specific headers a proxy must not forward (RFC 9110 7.6.1), plus the legacy
 * Proxy-* ones that only make sense for one hop.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
]);

/** Names listed in a Connection header value, which RFC 9110 7.6.1 makes hop-by-hop too. */
export function connectionListed(value: string | string[] | undefined): Set<string> | undefined {
  if (value === undefined || value === 'keep-alive' || value === 'close') return undefined;
  const joined = Array.isArray(value) ? value.join(',') : value;
  if (joined.indexOf(',') === -1) {
    const only = joined.trim().toLowerCase();
    // The everyday values name no other header.
    return only === 'keep-alive' || only === 'close' || only === '' ? undefined : new Set([only]);
  }
  return new Set(joined.split(',').map((name) => name.trim().toLowerCase()));
}

/** Copies end-to-end headers from `source` into `target`, dropping hop-by-hop ones and those `skip` names. */
export function copyEndToEndHeaders(source: IncomingHttpHeaders, target: OutgoingHttpHeaders, skip?: (name: string) => boolean): void {
  const listed = connectionListed(source.connection);
  for (const name in source) {
    if (HOP_BY_HOP.has(name) || (listed !== undefined && listed.has(name)) || (skip !== undefined && skip(name))) continue;
    const value = source[name];
    if (value !== undefined) target[name] = value;
  }
}

/** The Connection field of a raw header list, repeated ones joined (only names of its length are compared). */
export function connectionValue(raw: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 10 && name.toLowerCase() === 'connection') value = value === undefined ? raw[i + 1] : `${value}, ${raw[i + 1] as string}`;
  }
  return value;
}

const isHopByHopLower = (name: string): boolean => HOP_BY_HOP.has(name);

/**
 * The end-to-end fields of a raw header list as node's header map (headersOf), without the
 * hop-by-hop ones: what copyEndToEndHeaders(headersOf(raw), {}) gives, in one pass and one object.
 */
export function endToEndHeadersOf(raw: readonly string[]): IncomingHttpHeaders {
  const listed = connectionListed(connectionValue(raw));
  return headersOf(raw, listed === undefined ? isHopByHopLower : (name) => HOP_BY_HOP.has(name) || listed.has(name));
}

/** Case-insensitive HOP_BY_HOP membership for raw header names; lower-cases only names of a hop-by-hop length. */
export function isHopByHopName(name: string): boolean {
  switch (name.length) {
    case 2: // te
    case 7: // trailer, upgrade
    case 10: // connection, keep-alive
    case 16: // proxy-connection
    case 17: // transfer-encoding
    case 18: // proxy-authenticate
    case 19: // proxy-authorization
      return HOP_BY_HOP.has(name.toLowerCase());
    default:
      return false;
  }
}
