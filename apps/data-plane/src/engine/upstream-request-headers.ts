import { rewriteUpstreamPath as rewritePath } from '@gateway/route-model';
import type { CompiledRoute } from './compiled-route';
import type { Exchange } from './exchange';
import { copyEndToEndHeaders } from './hop-by-hop';
import { isClientIdentityHeader } from './identity-headers';

// Read once: the library's index re-exports it through a getter in TypeScript's CommonJS output,
// which every request's call would run through V8's generic load (~130 instructions under
// callgrind; as correlation-id.ts, branch h-rest100).
const rewriteUpstreamPath: typeof rewritePath = rewritePath;

/**
 * Prepares what goes upstream for a matched exchange: the rewritten path with the query kept
 * (decision 15) and the request headers without hop-by-hop fields, with the upstream's Host and the
 * X-Forwarded-* and correlation headers a backend expects from a proxy.
 */
export function prepareUpstreamRequest(exchange: Exchange, route: CompiledRoute): void {
  const { req } = exchange;
  const headers = exchange.upstreamHeaders;
  copyEndToEndHeaders(req.headers, headers, isClientIdentityHeader);
  const forwardedFor = req.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = forwardedFor === undefined ? exchange.clientIp : `${forwardedFor}, ${exchange.clientIp}`;
  headers['x-forwarded-proto'] = 'encrypted' in req.socket ? 'https' : 'http';
  // Without a Host (HTTP/1.0) the client's own X-Forwarded-Host must not pass for the gateway's.
  if (req.headers.host !== undefined) headers['x-forwarded-host'] = req.headers.host;
  else if (headers['x-forwarded-host'] !== undefined) delete headers['x-forwarded-host'];
  headers.host = route.upstream.hostHeader;
  headers['x-correlation-id'] = exchange.correlationId;
  exchange.upstreamPath =
    rewriteUpstreamPath(route.pattern, exchange.path, route.upstream.basePath, route.route.stripPath) + exchange.query;
}

/** The peer address without the IPv4-mapped prefix node reports on dual-stack sockets. */
export function socketClientIp(address: string | undefined): string {
  if (address === undefined) return '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}
