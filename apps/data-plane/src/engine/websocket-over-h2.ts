import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type http2 from 'node:http2';
import type { Exchange } from './exchange';
import { writeUpstreamResponseHead } from './responses';
import type { ClientEnd } from './websocket-connection';

/*
 * WebSocket over HTTP/2 (RFC 8441) in front of an HTTP/1.1 upstream, as Envoy does it: the
 * client's extended CONNECT went upstream as a GET opening handshake with a key of the gateway's
 * (h2-compat.ts); the upstream's 101 is answered on the client's stream with 200, and the stream
 * carries the WebSocket bytes from then on.
 */

/** RFC 6455 1.3: the GUID a server appends to the key before hashing it. */
const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** The request came in over HTTP/2 (an extended CONNECT, when it is a WebSocket handshake). */
export function isHttp2Exchange(exchange: Exchange): boolean {
  return exchange.req.httpVersionMajor === 2;
}

/** RFC 6455 4.1: the client (here the gateway) must fail a 101 whose Sec-WebSocket-Accept is not the one its key calls for. */
function acceptsKey(key: string | string[] | undefined, accept: string | string[] | undefined): boolean {
  if (typeof key !== 'string' || typeof accept !== 'string') return false;
  return createHash('sha1').update(key + WEBSOCKET_GUID).digest('base64') === accept.trim();
}

/**
 * Answers the client's stream with 200 for the upstream's 101: the upstream's end-to-end fields
 * (subprotocol, extensions) and the gateway's own, without Sec-WebSocket-Accept, which RFC 8441 5
 * leaves out of HTTP/2. Returns the stream as the relay's client end, or undefined (nothing
 * written) when the 101 does not answer the gateway's key: the caller answers 502.
 */
export function switchH2Stream(exchange: Exchange, response: IncomingMessage): ClientEnd | undefined {
  if (!acceptsKey(exchange.req.headers['sec-websocket-key'], response.headers['sec-websocket-accept'])) return undefined;
  const raw = response.rawHeaders;
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if ((raw[i] as string).toLowerCase() !== 'sec-websocket-accept') kept.push(raw[i] as string, raw[i + 1] as string);
  writeUpstreamResponseHead(exchange, 200, kept);
  return (exchange.res as unknown as http2.Http2ServerResponse).stream;
}
