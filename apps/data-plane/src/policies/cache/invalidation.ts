import type { OutgoingHttpHeaders } from 'node:http';
import type { Exchange } from '../../engine/exchange';
import { normalizePath } from '../../engine/request-target';

/** Methods whose success changes what the target serves (RFC 9110 9.2.1); they invalidate (RFC 9111 4.4). */
export const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The normalized path a `Location` or `Content-Location` value names, when it is on the request's
 * own origin (scheme and Host as the client sent them); undefined otherwise. RFC 9111 4.4 limits
 * invalidation to the same origin so that one site cannot flush another's entries.
 */
export function sameOriginPath(exchange: Exchange, value: OutgoingHttpHeaders[string]): string | undefined {
  const host = exchange.req.headers.host;
  if (value === undefined || host === undefined) return undefined;
  const scheme = 'encrypted' in exchange.req.socket ? 'https' : 'http';
  try {
    const base = new URL(`${scheme}://${host}${exchange.path}`);
    const url = new URL(String(Array.isArray(value) ? value[0] : value), base);
    return url.origin === base.origin ? normalizePath(url.pathname) : undefined;
  } catch {
    // An unparsable Host or location names nothing to invalidate.
    return undefined;
  }
}
