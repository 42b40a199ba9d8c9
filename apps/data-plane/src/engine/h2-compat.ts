import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';
import http2 from 'node:http2';
import type { Writable } from 'node:stream';

/*
 * The edge between HTTP/2 and the engine. node's compatibility API gives a request and a response
 * shaped like node:http's; these subclasses make them look like an HTTP/1.1 exchange, so the
 * pipeline, policies and the upstream call stay the same for both protocols (RFC 9113 8.3).
 */

/** Fields RFC 9113 8.2.2 forbids in HTTP/2 (node throws when a response carries one). */
const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'http2-settings', 'te']);

/**
 * The request as an HTTP/1.1 server would have parsed it: pseudo-header fields dropped, `Host` from
 * `:authority` (RFC 9113 8.3.1: a proxy to HTTP/1.1 creates Host from it), crumbled cookies joined
 * with `; ` (8.2.3, node already does), and a body of undeclared length marked chunked, since
 * HTTP/2 frames a body without Content-Length and the upstream hop needs a framing of its own.
 */
export class H2GatewayRequest extends http2.Http2ServerRequest {
  /** Octets of the header list as SETTINGS_MAX_HEADER_LIST_SIZE counts them (RFC 9113 6.5.2): nghttp2 announces that limit but does not enforce it. */
  readonly headerListSize: number;
  /** An extended CONNECT for a WebSocket (RFC 8441): served as the GET handshake it stands for. */
  readonly webSocketConnect: boolean;

  constructor(stream: http2.ServerHttp2Stream, headers: IncomingHttpHeaders, options: ConstructorParameters<typeof http2.Http2ServerRequest>[2], rawHeaders: readonly string[]) {
    super(stream, headers, options, rawHeaders);
    let size = 0;
    for (let i = 0; i < rawHeaders.length; i += 2) size += (rawHeaders[i] as string).length + (rawHeaders[i + 1] as string).length + 32;
    this.headerListSize = size;
    const tunnel = isWebSocketConnect(headers);
    this.webSocketConnect = tunnel;
    const plain = toHttp1Headers(headers, !stream.endAfterHeaders && !tunnel);
    if (tunnel) asWebSocketHandshake(plain);
    // Own properties shadow the compatibility getters; `method` and `url` still read the pseudo-headers.
    Object.defineProperty(this, 'headers', { value: plain, enumerable: true });
    // An extended CONNECT is routed and policed as the GET handshake it stands for (RFC 8441 5).
    if (tunnel) Object.defineProperty(this, 'method', { value: 'GET', enumerable: true });
    Object.defineProperty(this, 'rawHeaders', { value: flatten(plain), enumerable: true });
  }
}

/**
 * The response without connection-specific fields (a gateway-made 400 asks for `Connection: close`,
 * a cached answer may still hold one), and with node:http's meaning of `writableFinished`: the
 * engine tells a complete response from a cut one with it, and node's compatibility response says
 * true for a stream the client reset mid-answer (no 499, the upstream request left running).
 */
export class H2GatewayResponse extends http2.Http2ServerResponse<H2GatewayRequest> {
  override writeHead(statusCode: number, ...rest: Array<string | OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined>): this {
    const headers = rest[rest.length - 1];
    // The status message is HTTP/1 only: HTTP/2 has none to carry.
    // node's compatibility writeHead takes a flat list too, as node:http's does (its types say otherwise).
    if (headers !== undefined && typeof headers !== 'string') super.writeHead(statusCode, withoutConnectionFields(headers) as OutgoingHttpHeaders);
    else super.writeHead(statusCode);
    return this;
  }

  override setHeader(name: string, value: number | string | readonly string[]): this {
    if (!CONNECTION_SPECIFIC.has(name.toLowerCase())) super.setHeader(name, value);
    return this;
  }
}

// A getter on the prototype: the types declare `writableFinished` a plain property.
Object.defineProperty(H2GatewayResponse.prototype, 'writableFinished', {
  /** Complete once the compatibility layer ended the response and the stream flushed it. */
  get(this: H2GatewayResponse): boolean {
    return this.writableEnded && (this.stream as http2.ServerHttp2Stream & Writable).writableFinished;
  },
});

/**
 * An extended CONNECT for a WebSocket (RFC 8441 4): `:method CONNECT` with `:protocol websocket`
 * (and, by nghttp2's checks once SETTINGS_ENABLE_CONNECT_PROTOCOL is sent, `:path` and `:scheme`).
 */
function isWebSocketConnect(headers: IncomingHttpHeaders): boolean {
  return headers[':method'] === 'CONNECT' && headers[':protocol'] === 'websocket' && typeof headers[':path'] === 'string';
}

/**
 * The HTTP/1.1 opening handshake an extended CONNECT stands for (RFC 8441 5, as Envoy forwards it
 * to an HTTP/1.1 upstream): `Upgrade: websocket` and a fresh `Sec-WebSocket-Key`, since HTTP/2
 * clients send none (the hop's key is the gateway's; a client's own is replaced). Version,
 * subprotocols and extensions are the client's fields, passed on as they are.
 */
function asWebSocketHandshake(plain: IncomingHttpHeaders): void {
  plain.upgrade = 'websocket';
  plain.connection = 'Upgrade';
  plain['sec-websocket-key'] = randomBytes(16).toString('base64');
}

function toHttp1Headers(headers: IncomingHttpHeaders, bodyFollows: boolean): IncomingHttpHeaders {
  const plain: IncomingHttpHeaders = {};
  for (const name in headers) {
    if (name.charCodeAt(0) === 58 /* : */ || CONNECTION_SPECIFIC.has(name)) continue;
    plain[name] = headers[name];
  }
  const authority = headers[':authority'];
  if (typeof authority === 'string') plain.host = authority;
  if (bodyFollows && plain['content-length'] === undefined) plain['transfer-encoding'] = 'chunked';
  return plain;
}

function flatten(headers: IncomingHttpHeaders): string[] {
  const raw: string[] = [];
  for (const name in headers) {
    const value = headers[name];
    if (typeof value === 'string') raw.push(name, value);
    else if (value !== undefined) for (const item of value) raw.push(name, item);
  }
  return raw;
}

function withoutConnectionFields(headers: OutgoingHttpHeaders | OutgoingHttpHeader[]): OutgoingHttpHeaders | OutgoingHttpHeader[] {
  if (Array.isArray(headers)) {
    const out: OutgoingHttpHeader[] = [];
    for (let i = 0; i < headers.length; i += 2) {
      if (!CONNECTION_SPECIFIC.has(String(headers[i]).toLowerCase())) out.push(headers[i] as OutgoingHttpHeader, headers[i + 1] as OutgoingHttpHeader);
    }
    return out;
  }
  let out: OutgoingHttpHeaders | undefined;
  for (const name in headers) {
    if (!CONNECTION_SPECIFIC.has(name.toLowerCase())) continue;
    out ??= { ...headers };
    delete out[name];
  }
  return out ?? headers;
}
