import type { OutgoingHttpHeaders } from 'node:http';

/** The CORS response headers an upstream may also send; the gateway's answer replaces them. */
const CORS_RESPONSE_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-expose-headers',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
] as const;

export function dropUpstreamCorsHeaders(headers: OutgoingHttpHeaders): void {
  for (const name of CORS_RESPONSE_HEADERS) if (headers[name] !== undefined) delete headers[name];
}

/** `value` with `token` added unless already listed (or `*`); header field lists are case-insensitive. */
export function withVaryToken(value: OutgoingHttpHeaders[string], token: string): string {
  const existing = value === undefined ? '' : Array.isArray(value) ? value.join(', ') : String(value);
  if (existing.trim() === '') return token;
  const wanted = token.toLowerCase();
  for (const part of existing.split(',')) {
    const name = part.trim().toLowerCase();
    if (name === wanted || name === '*') return existing;
  }
  return `${existing}, ${token}`;
}

/**
 * Access-Control-Request-Headers echoed back when the route lists no headers: only a list of
 * header-name tokens, bounded, so a client cannot make the gateway write anything else.
 */
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;
const MAX_ECHOED_HEADERS = 2048;

export function echoableHeaderList(requested: string | string[] | undefined): string | undefined {
  const value = Array.isArray(requested) ? requested.join(',') : requested;
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed !== '' && trimmed.length <= MAX_ECHOED_HEADERS && HEADER_LIST.test(trimmed) ? trimmed : undefined;
}
