import type { IncomingHttpHeaders } from 'node:http';

/** Fields node keeps only the first of (its IncomingMessage `matchKnownFields`): a duplicate is dropped. */
const FIRST_ONLY = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/**
 * The header map node's IncomingMessage builds from a raw `[name, value, ...]` list, built the same
 * way so policies see what they saw with http.request: lower-case names, Set-Cookie as an array,
 * Cookie joined with '; ', the FIRST_ONLY fields once, every other repeated field joined with ', '.
 */
export function headersOf(raw: readonly string[], dropped?: (lowerName: string) => boolean): IncomingHttpHeaders {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    // `dropped`: fields left out of the map (hop-by-hop ones) while it is built, not copied out of it after.
    if (dropped !== undefined && dropped(name)) continue;
    const value = raw[i + 1] as string;
    const seen = out[name];
    if (seen === undefined) out[name] = name === 'set-cookie' ? [value] : value;
    else if (name === 'set-cookie') (seen as string[]).push(value);
    else if (FIRST_ONLY.has(name)) continue;
    else out[name] = `${seen as string}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return out;
}

/**
 * `candidate` equals `lower` (a lower-case name) when ASCII letters are folded: toLowerCase's
 * answer for a field name (a token, ASCII only), without the lower-cased copy.
 */
function equalsFolded(candidate: string, lower: string): boolean {
  if (candidate.length !== lower.length) return false;
  for (let i = 0; i < lower.length; i += 1) {
    const code = candidate.charCodeAt(i);
    if ((code >= 65 && code <= 90 ? code + 32 : code) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * The first value of `name` (lower-case) in a raw header list, without building a map. Names are
 * compared by folding ASCII letters, not by lower-casing each: every proxied response is asked its
 * Content-Type (open-streams.ts; issue 19, branch h-srv100).
 */
export function rawHeaderValue(raw: readonly string[], name: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    if (equalsFolded(raw[i] as string, name)) return raw[i + 1];
  }
  return undefined;
}
