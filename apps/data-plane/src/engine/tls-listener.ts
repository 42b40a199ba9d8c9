import type { EventEmitter } from 'node:events';
import type http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import type { ProxySettings, ProxyTlsSettings } from '@gateway/route-model';
import { GATEWAY_ERRORS } from './error-catalogue';
import { H2GatewayRequest, H2GatewayResponse } from './h2-compat';
import { guardSession, type H2Abuse } from './h2-session-guard';
import type { Logger } from './ports';
import type { FrontListener } from './server-drain';
import { writeH2StreamError } from './responses';
import { contextFor, loadCertificates, type CertificateLoad, type CertificateSet } from './tls-certificates';
import { markUpgradeRequest } from './websocket-upgrade';

/** Streams one HTTP/2 connection may have open at once (nginx, Envoy and Go use 100 to 128). */
export const H2_MAX_CONCURRENT_STREAMS = 100;
/** MB of memory one session may hold in nghttp2 buffers before new streams are refused (node's default, made explicit). */
const H2_MAX_SESSION_MEMORY_MB = 10;
/** PINGs a client may have unanswered (node's default, made explicit): a PING flood fills no queue. */
const H2_MAX_OUTSTANDING_PINGS = 10;
/** Header fields one request may carry (node:http allows 2000 lines, nghttp2 counts pairs). */
const H2_MAX_HEADER_PAIRS = 256;

/** What a reload cannot change on a listening socket (only the certificates are swapped). */
const RESTART_SETTINGS = ['enabled', 'port', 'minVersion', 'http2', 'redirectHttp'] as const;

/**
 * The HTTPS listener: one TLS socket per client, its certificate chosen by SNI from the set in
 * use (swapped by a reload; handshakes under way finish with the context they began with, open
 * connections keep theirs), and by ALPN handed to either the HTTP/1.1 server (the same one the
 * HTTP port uses, with all its limits, upgrades and drain bookkeeping) or an HTTP/2 server whose
 * requests go through the same handler. Neither inner server listens itself.
 */
export class TlsListener implements FrontListener {
  readonly server: tls.Server;
  private readonly h2: EventEmitter | undefined;
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  private certificates: CertificateSet;
  private readonly maxHeaderSize: number;

  constructor(
    settings: ProxySettings,
    private readonly tlsSettings: ProxyTlsSettings,
    certificates: CertificateSet,
    http1: http.Server,
    handler: http.RequestListener,
    private readonly logger: Logger,
    /**
     * Targets only HTTP/1.1 may carry (the control plane mounted in one-process mode is built on
     * node:http's own objects): their HTTP/2 streams are reset with HTTP_1_1_REQUIRED, which
     * browsers and curl answer by sending the request again over HTTP/1.1 (RFC 9113 7).
     */
    private readonly http1Only: (url: string) => boolean = () => false,
  ) {
    this.certificates = certificates;
    this.maxHeaderSize = settings.maxHeaderSize;
    this.server = tls.createServer({
      ...certificates.fallbackPem,
      minVersion: tlsSettings.minVersion,
      ALPNProtocols: tlsSettings.http2 ? ['h2', 'http/1.1'] : ['http/1.1'],
      // A client that opens a socket and never finishes its handshake is held no longer than one that never sends headers.
      handshakeTimeout: settings.headersTimeout,
      SNICallback: (serverName, done) => done(null, contextFor(this.certificates, serverName)),
    });
    this.server.on('tlsClientError', (error: NodeJS.ErrnoException) => logger.debug({ code: error.code }, 'TLS handshake failed'));
    this.h2 = tlsSettings.http2 ? this.createH2Server(settings, handler) : undefined;
    const h2 = this.h2;
    this.server.on('secureConnection', (socket: tls.TLSSocket) => {
      if (h2 !== undefined && socket.alpnProtocol === 'h2') h2.emit('connection', socket);
      else http1.emit('connection', socket);
    });
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  /**
   * Reads the certificate files again (the list may be a new one) and swaps them in for new
   * handshakes; connections already open keep the certificate they were given. Files that do not
   * load leave the running certificates in place and are reported by field.
   */
  async reload(tls: ProxyTlsSettings): Promise<CertificateLoad> {
    const changed = RESTART_SETTINGS.filter((key) => tls[key] !== this.tlsSettings[key]);
    if (changed.length > 0) this.logger.warn({ settings: changed.map((key) => `proxy.tls.${key}`) }, 'changed proxy settings apply after a restart');
    const load = await loadCertificates(tls.certificates, this.tlsSettings.minVersion);
    if (!load.ok) {
      this.logger.error({ errors: load.errors }, 'certificates not reloaded; keeping the running ones');
      return load;
    }
    this.server.setSecureContext({ ...load.set.fallbackPem, minVersion: this.tlsSettings.minVersion });
    this.certificates = load.set;
    this.logger.info({ serverNames: load.set.names }, 'certificates reloaded');
    return load;
  }

  /** Stops accepting; resolves once every TLS connection (HTTP/1.1 or HTTP/2) is gone. */
  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** HTTP/2 sessions get GOAWAY: their open streams finish, new ones go elsewhere. */
  drain(): void {
    for (const session of this.sessions) session.close();
  }

  get openConnections(): number {
    return this.sessions.size;
  }

  /** Destroys the HTTP/2 sessions still open (the drain timeout); returns how many. */
  cut(): number {
    const count = this.sessions.size;
    for (const session of this.sessions) session.destroy();
    return count;
  }

  /** The header-list bound and the HTTP/1.1-only targets; false once the stream is answered. */
  private admits(req: http2.Http2ServerRequest, res: http2.Http2ServerResponse): boolean {
    if ((req as H2GatewayRequest).headerListSize > this.maxHeaderSize) {
      writeH2StreamError(res.stream, 'HEADERS_TOO_LARGE');
      return false;
    }
    if (this.http1Only(req.url ?? '')) {
      req.stream.close(http2.constants.NGHTTP2_HTTP_1_1_REQUIRED);
      return false;
    }
    return true;
  }

  private createH2Server(settings: ProxySettings, handler: http.RequestListener): EventEmitter {
    const server = http2.createServer({
      // enableConnectProtocol: SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 8441 3), WebSocket over HTTP/2.
      settings: { maxConcurrentStreams: H2_MAX_CONCURRENT_STREAMS, maxHeaderListSize: settings.maxHeaderSize, enablePush: false, enableConnectProtocol: true },
      maxSessionMemory: H2_MAX_SESSION_MEMORY_MB,
      maxOutstandingPings: H2_MAX_OUTSTANDING_PINGS,
      maxHeaderListPairs: H2_MAX_HEADER_PAIRS,
      Http2ServerRequest: H2GatewayRequest,
      Http2ServerResponse: H2GatewayResponse,
    });
    server.on('session', (session: http2.ServerHttp2Session) => {
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
      // node ends nothing by itself: an idle connection is closed like an idle HTTP/1.1 keep-alive one.
      session.setTimeout(settings.keepAliveTimeout, () => session.close());
      session.on('error', () => session.destroy());
      guardSession(session, (kind: H2Abuse) => this.logger.warn({ kind, remoteAddress: session.socket?.remoteAddress }, 'HTTP/2 client over budget; GOAWAY sent'));
    });
    // The compatibility objects stand in for node:http's (see h2-compat.ts): the engine is protocol-blind.
    const serve = handler as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void;
    const dispatch = (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse): void => {
      try {
        serve(req, res);
      } catch (error) {
        // node:http catches nothing here either, but a throw on this path would end the process.
        this.logger.error({ err: String(error) }, 'HTTP/2 request failed inside the gateway');
        if (!res.stream.destroyed) res.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      }
    };
    server.on('request', (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => {
      if (!this.admits(req, res)) return;
      limitRequestTime(req, res, settings.requestTimeout);
      dispatch(req, res);
    });
    // node's compatibility layer hands every CONNECT stream here, not to 'request'. Only the
    // extended CONNECT of RFC 8441 for a WebSocket is served: it enters the dispatcher as the GET
    // handshake it stands for (h2-compat.ts), so route match and every request policy apply, and
    // the dispatcher relays it on routes with `websocket` (websocket-upgrade.ts). A plain CONNECT
    // (RFC 9113 8.5, a forward-proxy tunnel) or another protocol gets 405, as CONNECT over HTTP/1.1.
    server.on('connect', (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => {
      if (!(req as H2GatewayRequest).webSocketConnect) {
        writeH2StreamError(res.stream, 'METHOD_NOT_ALLOWED');
        return;
      }
      if (!this.admits(req, res)) return;
      // No whole-request deadline: the stream is the connection now. The handshake has the route's
      // request timeout, the tunnel after it the idle timeout.
      markUpgradeRequest(req as unknown as http.IncomingMessage, EMPTY);
      dispatch(req, res);
    });
    return server;
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * node:http cuts a request whose body is still arriving after requestTimeout with 408; node:http2
 * has no such deadline, so each stream gets one here. The 408 is written on the stream itself: the
 * exchange sees its response end unfinished and records the status set here, as with HTTP/1.1.
 */
function limitRequestTime(req: http2.Http2ServerRequest, res: http2.Http2ServerResponse, timeoutMs: number): void {
  if (req.complete) return;
  const timer = setTimeout(() => {
    if (req.complete || res.stream.destroyed) return;
    if (res.headersSent) {
      res.stream.close(http2.constants.NGHTTP2_CANCEL);
      return;
    }
    res.statusCode = GATEWAY_ERRORS.REQUEST_TIMEOUT.status;
    writeH2StreamError(res.stream, 'REQUEST_TIMEOUT');
  }, timeoutMs);
  const clear = (): void => clearTimeout(timer);
  req.once('end', clear);
  res.once('close', clear);
}
