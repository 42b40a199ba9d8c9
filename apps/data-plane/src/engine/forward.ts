import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Exchange } from './exchange';
import type { UpstreamCallback } from './policy';
import type { UpstreamRequest } from './upstream-client/request-head';
import { UpstreamResponse } from './upstream-response';
import type { UpstreamTarget } from './upstream-target';
import { chooseTarget } from './upstreams/target-choice';

const ATTEMPT = Symbol('gateway.attempt');
type BodySource = IncomingMessage & { [ATTEMPT]?: UpstreamResponse };

/** A client body chunk goes to the current attempt; the client is paused while the upstream is full. */
function onClientBodyData(this: BodySource, chunk: Buffer): void {
  const upstream = this[ATTEMPT]?.upstream;
  // An attempt that ended (answered early, cut) takes no more: the rest is read and dropped.
  if (upstream === undefined || upstream.ended) return;
  if (!upstream.write(chunk)) this.pause();
}

function onClientBodyEnd(this: BodySource): void {
  this[ATTEMPT]?.upstream?.end();
}

/**
 * The `[name, value, ...]` list the client sends as it is (no header map walked twice). Framing
 * fields are the client's own business: it derives them from the body.
 */
function flatHeaders(headers: OutgoingHttpHeaders): string[] {
  const out: string[] = [];
  for (const name in headers) {
    const value = headers[name];
    if (typeof value === 'string') out.push(name, value);
    else if (typeof value === 'number') out.push(name, String(value));
    // As node does for a header map: one Cookie line (RFC 6265 5.4), one line per value otherwise.
    else if (value !== undefined) {
      if (name === 'cookie') out.push(name, value.join('; '));
      else for (let i = 0; i < value.length; i += 1) out.push(name, value[i] as string);
    }
  }
  return out;
}

/** How the client's body travels: held for replay, streamed with its length or chunked, or none. */
function upstreamRequestOf(exchange: Exchange): UpstreamRequest {
  const method = exchange.method;
  const path = exchange.upstreamPath;
  const headers = flatHeaders(exchange.upstreamHeaders);
  const body = exchange.bufferedBody;
  const trustedValue = exchange.trustedUpstreamValue;
  if (body !== undefined) return { method, path, headers, body, trustedValue };
  const requestHeaders = exchange.req.headers;
  // A body with Transfer-Encoding (node only accepts one that ends in chunked) goes out chunked on
  // this hop too; a Content-Length one with its length. A GET with a body keeps its framing: an
  // unframed body would be read by the upstream as a second request (request smuggling).
  if (requestHeaders['transfer-encoding'] !== undefined) return { method, path, headers, streamedBody: 'chunked', trustedValue };
  const length = requestHeaders['content-length'];
  if (length === undefined || length === '0') return { method, path, headers, trustedValue };
  return { method, path, headers, streamedBody: Number(length), trustedValue };
}

/** A request with nothing left to stream may be sent again when a reused connection failed before any byte. */
function resendOnFreshConnection(attempt: UpstreamResponse): boolean {
  const exchange = attempt.exchange;
  const request = attempt.upstream?.request;
  if (request === undefined || request.streamedBody !== undefined || exchange.clientAborted) return false;
  const target = attempt.target as UpstreamTarget;
  attempt.upstream = target.pool.request(request, attempt, target.timeouts, true);
  return true;
}

/**
 * The innermost upstream call: sends the exchange's request through its route's upstream pool (the
 * lean HTTP/1.1 client) and calls back once the response head arrives. The request body streams
 * from the client with backpressure (or is replayed from `bufferedBody`). Wrappers (timeouts,
 * retries, breakers, the body limit) and the client-abort path end it through `exchange.upstream`.
 */
export function forward(exchange: Exchange, done: UpstreamCallback): void {
  const route = exchange.route as NonNullable<Exchange['route']>;
  // Before the headers are flattened: choosing a target of a named upstream sets its Host.
  const target = route.balanced === undefined ? route.upstream : chooseTarget(exchange, route);
  exchange.attempts += 1;
  const request = upstreamRequestOf(exchange);
  // Only a request the gateway can send again unchanged is resent after a stale pooled connection
  // (the upstream closing an idle keep-alive connection as it was reused): as nginx and undici do.
  const attempt = new UpstreamResponse(exchange, done, request.streamedBody === undefined ? resendOnFreshConnection : undefined);
  exchange.upstream = attempt;
  attempt.target = target;
  attempt.upstream = target.pool.request(request, attempt, target.timeouts);
  if (request.streamedBody === undefined) return;
  const req = exchange.req as BodySource;
  req[ATTEMPT] = attempt;
  attempt.streamsClientBody = true;
  req.on('data', onClientBodyData);
  req.on('end', onClientBodyEnd);
}
