import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { RequestOptions as HttpsRequestOptions } from 'node:https';
import { GatewayError, isGatewayError } from './error-catalogue';
import type { Exchange } from './exchange';
import type { UpstreamCallback } from './policy';
import { chooseTarget, settleTarget } from './upstreams/target-choice';

/** Per-attempt state carried on the upstream request, so its listeners are shared functions. */
interface Attempt {
  exchange: Exchange;
  done: UpstreamCallback;
  settled: boolean;
}

const ATTEMPT = Symbol('gateway.attempt');
type TrackedRequest = ClientRequest & { [ATTEMPT]: Attempt };

function onUpstreamResponse(this: TrackedRequest, response: IncomingMessage): void {
  const attempt = this[ATTEMPT];
  if (attempt.settled) {
    response.resume();
    return;
  }
  attempt.settled = true;
  attempt.exchange.upstreamResponse = response;
  settleTarget(attempt.exchange, (response.statusCode ?? 502) >= 500);
  attempt.done(null, response);
}

function onUpstreamError(this: TrackedRequest, error: Error): void {
  const attempt = this[ATTEMPT];
  // Errors after the response head belong to the response stream (the dispatcher watches it).
  if (attempt.settled) return;
  attempt.settled = true;
  settleTarget(attempt.exchange, true);
  attempt.done(isGatewayError(error) ? error : new GatewayError('UPSTREAM_ERROR', undefined, { cause: error }), null);
}

/**
 * The request closed with neither a response nor an error: node does that when an upstream answers
 * a request that asked for no upgrade with `101 Switching Protocols` (it destroys the socket when
 * nobody listens for 'upgrade'). Unanswered, the exchange would wait forever: the timeout policy
 * only cuts a request that is not destroyed yet.
 */
function onUpstreamClose(this: TrackedRequest): void {
  const attempt = this[ATTEMPT];
  if (attempt.settled) return;
  attempt.settled = true;
  settleTarget(attempt.exchange, true);
  attempt.done(new GatewayError('UPSTREAM_ERROR'), null);
}

/**
 * The `[name, value, ...]` list http.request takes without building its own header map (its
 * setHeader path validates and stores every field once more before serialising them).
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

/**
 * The innermost upstream call: sends the exchange's request to its route's upstream and calls
 * back once the response head arrives. The request body streams from the client (or is replayed
 * from `bufferedBody`). Wrappers (timeouts, retries, breakers) cut it through
 * `exchange.upstreamRequest`.
 */
export function forward(exchange: Exchange, done: UpstreamCallback): void {
  const route = exchange.route as NonNullable<Exchange['route']>;
  // Before the headers are flattened: choosing a target of a named upstream sets its Host.
  const target = route.balanced === undefined ? route.upstream : chooseTarget(exchange, route);
  exchange.attempts += 1;
  const req = exchange.req;
  const headers = flatHeaders(exchange.upstreamHeaders);
  const chunkedBody = exchange.bufferedBody === undefined && req.headers['transfer-encoding'] !== undefined;
  // Transfer-Encoding is hop-by-hop, but a streamed body must be framed on this hop too: node
  // sends a GET, HEAD, DELETE or OPTIONS body without any framing unless told, and the upstream
  // would read those bytes as a second request the gateway never checked (request smuggling).
  // node's parser only accepts a request Transfer-Encoding that ends in chunked.
  if (chunkedBody) headers.push('transfer-encoding', req.headers['transfer-encoding'] as string);
  const options: HttpsRequestOptions = {
    hostname: target.hostname,
    port: target.port,
    method: exchange.method,
    path: exchange.upstreamPath,
    headers,
    agent: target.agent,
    servername: target.servername,
  };
  const upstreamRequest = target.request(options) as TrackedRequest;
  // A HEAD answer ends with its head, so body bytes a faulty upstream sends after it would be read
  // as the answer to the next request on a pooled connection: another client's response.
  if (exchange.method === 'HEAD') upstreamRequest.shouldKeepAlive = false;
  upstreamRequest[ATTEMPT] = { exchange, done, settled: false };
  exchange.upstreamRequest = upstreamRequest;
  upstreamRequest.on('response', onUpstreamResponse);
  upstreamRequest.on('error', onUpstreamError);
  upstreamRequest.on('close', onUpstreamClose);

  if (exchange.bufferedBody !== undefined) {
    upstreamRequest.end(exchange.bufferedBody);
  } else if (!chunkedBody && (req.headers['content-length'] === undefined || req.headers['content-length'] === '0')) {
    upstreamRequest.end();
  } else {
    req.pipe(upstreamRequest);
  }
}
