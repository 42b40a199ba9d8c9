import type { IncomingHttpHeaders } from 'node:http';

/** The HttpOnly cookie holding the management token of a browser session (docs/admin-ui.md). */
export const SESSION_COOKIE = 'gateway_session';
/** The CSRF token, readable by the page, which echoes it in CSRF_HEADER (double submit). */
export const CSRF_COOKIE = 'gateway_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** Methods that change state: with a cookie session they need the CSRF header. */
export const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** One cookie's value from a Cookie header (the first of that name), undefined when absent. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=');
    if (separator < 0 || pair.slice(0, separator).trim() !== name) continue;
    const value = pair.slice(separator + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

/**
 * The token of a cookie session, when the request authenticates by cookie: a request that sends
 * Authorization is a Bearer client, whatever cookies it also carries, and needs no CSRF token.
 */
export function sessionCookieToken(headers: IncomingHttpHeaders): string | undefined {
  if (headers.authorization !== undefined) return undefined;
  return readCookie(headers.cookie, SESSION_COOKIE);
}

interface CookieAttributes {
  maxAgeSeconds: number;
  httpOnly: boolean;
  secure: boolean;
}

/** A Set-Cookie value: SameSite=Strict and Path=/ always (one cookie for /api under any prefix). */
export function setCookieValue(name: string, value: string, attributes: CookieAttributes): string {
  const parts = [`${name}=${value}`, 'Path=/', `Max-Age=${attributes.maxAgeSeconds}`, 'SameSite=Strict'];
  if (attributes.httpOnly) parts.push('HttpOnly');
  if (attributes.secure) parts.push('Secure');
  return parts.join('; ');
}
