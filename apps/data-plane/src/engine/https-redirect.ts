import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { generateCorrelationId } from './correlation-id';
import { isWellFormedHost } from './request-target';
import { errorBody } from './responses';

/**
 * `proxy.tls.redirectHttp`: a request that came in over plain HTTP is sent to the same host and
 * target on the HTTPS port, permanently (Traefik's and Kong's choice: 301 for GET and HEAD, 308
 * for the others so the method and body are kept, RFC 9110 15.4.9). The gateway's own endpoints
 * (`keepOnHttp`: /health..., /metrics) are still served over HTTP: probes and scrapers keep working.
 */
export function withHttpsRedirect(httpsPort: () => number, keepOnHttp: (path: string) => boolean, next: RequestListener): RequestListener {
  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    if ((req.socket as { encrypted?: boolean }).encrypted === true || keepOnHttp(q === -1 ? url : url.slice(0, q))) {
      next(req, res);
      return;
    }
    redirect(req, res, httpsPort());
  };
}

function redirect(req: IncomingMessage, res: ServerResponse, port: number): void {
  const host = req.headers.host;
  // Only an origin-form target names a path on this host; anything else is left to the data plane's checks.
  if (host === undefined || !isWellFormedHost(host) || (req.url ?? '').charCodeAt(0) !== 47 /* / */) {
    const body = errorBody('INVALID_HOST', generateCorrelationId());
    res.writeHead(400, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
    res.end(body);
    return;
  }
  const bracket = host.lastIndexOf(']');
  const colon = host.lastIndexOf(':');
  const hostname = colon > bracket ? host.slice(0, colon) : host;
  const location = `https://${hostname}${port === 443 ? '' : `:${port}`}${req.url ?? '/'}`;
  const method = req.method ?? 'GET';
  res.writeHead(method === 'GET' || method === 'HEAD' ? 301 : 308, { location, 'content-length': 0 });
  res.end();
}
