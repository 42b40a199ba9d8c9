import type { OutgoingHttpHeaders } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import { GATEWAY_ERRORS, type GatewayErrorCode } from './error-catalogue';
import type { Exchange } from './exchange';
import type { LocalReply, ResponseHeadRules } from './policy';
import { generateCorrelationId } from './correlation-id';
import { connectionListed, connectionValue, isHopByHopName } from './hop-by-hop';
import { VERSION_HEADERS } from './version-headers';

/*
 * The one module that writes responses the gateway generates itself (spec 7.3 bodies) and the head
 * of proxied responses, so every response carries the same correlation and version headers.
 */

/** Statuses after which the connection is closed: the rest of the request may still be unread. */
const CLOSE_AFTER = new Set([400, 408, 413, 431]);

function withExchangeHeaders(exchange: Exchange, headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  headers['x-correlation-id'] = exchange.correlationId;
  const extra = exchange.responseHeaders;
  if (extra !== undefined) for (const name in extra) headers[name] = extra[name];
  return headers;
}

/**
 * Writes the head of an upstream response that no policy changes, straight from node's raw header
 * list: hop-by-hop fields and the upstream's copies of the gateway's own headers (all `x-...`) are
 * dropped, the exchange's are appended. Handing writeHead a flat list skips building and walking a
 * header map, a sizeable share of a proxied request's CPU.
 *
 * With `rules` (a route whose only response hook is header rules, ResponseHeadRules), the
 * upstream's fields the rules name are dropped too and the rules' fields appended before the
 * exchange's: what the hook does to a header map, with the exchange's headers winning as they do
 * over a map (withExchangeHeaders).
 */
export function writeUpstreamResponseHead(exchange: Exchange, status: number, raw: readonly string[], rules?: ResponseHeadRules | null): void {
  const listed = connectionListed(connectionValue(raw));
  const extra = exchange.responseHeaders;
  const ruled = rules === undefined || rules === null ? undefined : rules;
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (isHopByHopName(name)) continue;
    const first = name.charCodeAt(0);
    const maybeRuled = ruled !== undefined && ((ruled.lengths >>> (name.length & 31)) & 1) === 1;
    if (listed !== undefined || maybeRuled || first === 120 /* x */ || first === 88 /* X */) {
      const lower = name.toLowerCase();
      if (listed !== undefined && listed.has(lower)) continue;
      if (maybeRuled && ruled.names.has(lower)) continue;
      if (lower === 'x-correlation-id' || (extra !== undefined && extra[lower] !== undefined)) continue;
    }
    out.push(name, raw[i + 1] as string);
  }
  if (ruled !== undefined) {
    const set = ruled.set;
    for (let i = 0; i < set.length; i += 1) {
      const [name, value] = set[i] as (typeof set)[number];
      if (name === 'x-correlation-id' || (extra !== undefined && extra[name] !== undefined)) continue;
      out.push(name, value(exchange));
    }
  }
  out.push('x-correlation-id', exchange.correlationId);
  if (extra !== undefined) for (const name in extra) out.push(name, extra[name] as string);
  exchange.status = status;
  exchange.res.writeHead(status, out);
}

/** Writes the status line and headers of a proxied (or replayed) response. */
export function writeResponseHead(exchange: Exchange, status: number, headers: OutgoingHttpHeaders): void {
  exchange.status = status;
  exchange.res.writeHead(status, withExchangeHeaders(exchange, headers));
}

export function errorBody(code: GatewayErrorCode, correlationId: string, retryAfter?: number): string {
  const entry = GATEWAY_ERRORS[code];
  if (entry.message === undefined) return JSON.stringify({ error: entry.error, correlationId });
  return JSON.stringify(
    retryAfter === undefined
      ? { error: entry.error, message: entry.message, correlationId }
      : { error: entry.error, message: entry.message, correlationId, retryAfter },
  );
}

/** Answers with a catalogued error, or cuts the connection if the response has already started. */
export function sendError(exchange: Exchange, code: GatewayErrorCode, retryAfter?: number, headers?: Record<string, string>): void {
  const { res } = exchange;
  exchange.errorCode = code;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const status = GATEWAY_ERRORS[code].status;
  const body = errorBody(code, exchange.correlationId, retryAfter);
  const out: OutgoingHttpHeaders = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  };
  if (retryAfter !== undefined) out['retry-after'] = String(retryAfter);
  if (CLOSE_AFTER.has(status)) out.connection = 'close';
  if (headers !== undefined) Object.assign(out, headers);
  writeResponseHead(exchange, status, out);
  res.end(body);
}

/** JSON answer of a local endpoint (ops endpoints). */
export function sendJson(exchange: Exchange, status: number, payload: unknown): void {
  sendBody(exchange, status, 'application/json; charset=utf-8', JSON.stringify(payload));
}

export function sendBody(exchange: Exchange, status: number, contentType: string, body: string | Buffer): void {
  writeResponseHead(exchange, status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  exchange.res.end(body);
}

export function sendLocalReply(exchange: Exchange, reply: LocalReply): void {
  if (reply.kind === 'error') {
    sendError(exchange, reply.code, reply.retryAfter, reply.headers);
    return;
  }
  const headers: OutgoingHttpHeaders = { ...reply.headers };
  if (reply.body !== undefined && headers['content-length'] === undefined) headers['content-length'] = Buffer.byteLength(reply.body);
  writeResponseHead(exchange, reply.status, headers);
  exchange.res.end(reply.body);
}

/**
 * Errors found before node:http produced a request (oversized headers, header timeout, parse
 * errors): written straight to the socket, still with the spec 7.3 body and version headers.
 */
export function writeRawError(socket: Socket, code: GatewayErrorCode): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status = GATEWAY_ERRORS[code].status;
  const correlationId = generateCorrelationId();
  const body = errorBody(code, correlationId);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'Connection: close',
    `X-Correlation-ID: ${correlationId}`,
    ...Object.entries(VERSION_HEADERS).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** The HTTP/2 counterpart of writeRawError: a gateway error written on a stream no exchange answered. */
export function writeH2StreamError(stream: ServerHttp2Stream, code: GatewayErrorCode): void {
  if (stream.destroyed || stream.headersSent) return;
  const correlationId = generateCorrelationId();
  const body = errorBody(code, correlationId);
  stream.respond({
    ':status': GATEWAY_ERRORS[code].status,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-correlation-id': correlationId,
    ...VERSION_HEADERS,
  });
  stream.end(body);
}
