import net from 'node:net';
import tls from 'node:tls';
import { UPSTREAM_RESPONSE_LIMITS, type ResponseParserLimits } from './response-parser';
import type { UpstreamRequest } from './request-head';
import { UpstreamClientError } from './upstream-client-error';
import {
  UpstreamConnection,
  UpstreamExchange,
  type ConnectionOwner,
  type UpstreamResponseHandler,
  type UpstreamTimeouts,
} from './upstream-connection';

export interface UpstreamPoolOptions {
  /** The origin's host: the Host field's default and the TLS server name. */
  readonly host: string;
  readonly port: number;
  /** An address to dial instead of resolving `host` (a target the caller resolved itself). */
  readonly address?: string;
  /** An HTTPS upstream: TLS with SNI (unless `host` is an IP address) and the system CAs unless `ca` is given. */
  readonly tls?: {
    /** SNI and certificate name; default `host`. */
    readonly servername?: string;
    /** Trusted CA certificates (PEM) instead of node's bundled roots. */
    readonly ca?: string | Buffer | ReadonlyArray<string | Buffer>;
    /** Default true; false only for tests against self-signed upstreams. */
    readonly rejectUnauthorized?: boolean;
  };
  /**
   * Why this pool must not connect at all (an https upstream whose CA file could not be loaded):
   * every request fails with UPSTREAM_REFUSED carrying it, instead of trusting other roots.
   */
  readonly refusal?: string;
  /** Open connections at most (busy and idle); further requests wait in order. Default 256. */
  readonly maxConnections?: number;
  /** Idle time after which a pooled connection is closed; default 4000 ms (below common servers' 5 s). */
  readonly keepAliveMs?: number;
  /** Host field sent when a request has none; default `host[:port]`. */
  readonly hostHeader?: string;
  /** Defaults for requests that give none. */
  readonly timeouts?: Partial<UpstreamTimeouts>;
  readonly limits?: ResponseParserLimits;
}

export interface UpstreamPoolStats {
  readonly open: number;
  readonly idle: number;
  readonly queued: number;
}

const DEFAULT_TIMEOUTS: UpstreamTimeouts = { connectMs: 5000, firstByteMs: 30_000, idleMs: 30_000 };

/**
 * The lean HTTP/1.1 client for one upstream origin (node:net / node:tls only): a pool of
 * keep-alive connections reused last-in first-out (the warmest socket, and idle ones age out),
 * bounded by `maxConnections`, one request per connection at a time (no pipelining).
 *
 *   const exchange = pool.request({ method, path, headers, body }, handler);
 *   // handler.onResponse(head) -> onData(chunk)* -> onEnd(trailers) | onError(error) | onUpgrade(...)
 *   exchange.abort();  // client went away: no callback follows
 */
export class UpstreamPool implements ConnectionOwner {
  readonly limits: ResponseParserLimits;
  readonly hostHeader: string;
  readonly keepAliveMs: number;
  private readonly maxConnections: number;
  private readonly timeouts: UpstreamTimeouts;
  private readonly idle: UpstreamConnection[] = [];
  private readonly open = new Set<UpstreamConnection>();
  private readonly queue: UpstreamExchange[] = [];
  private closed = false;
  private readonly connectOptions: net.NetConnectOpts | tls.ConnectionOptions;
  /** The latest TLS session the upstream offered: new connections resume it (no full handshake). */
  private tlsSession: Buffer | undefined = undefined;
  private readonly onTlsSession = (session: Buffer): void => {
    this.tlsSession = session;
  };

  constructor(private readonly options: UpstreamPoolOptions) {
    const defaultPort = options.tls === undefined ? 80 : 443;
    const hostForHeader = net.isIPv6(options.host) ? `[${options.host}]` : options.host;
    this.hostHeader = options.hostHeader ?? (options.port === defaultPort ? hostForHeader : `${hostForHeader}:${options.port}`);
    this.limits = options.limits ?? UPSTREAM_RESPONSE_LIMITS;
    this.keepAliveMs = options.keepAliveMs ?? 4000;
    this.maxConnections = options.maxConnections ?? 256;
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    const dial = options.address ?? options.host;
    if (options.tls === undefined) {
      this.connectOptions = { host: dial, port: options.port };
    } else {
      const servername = options.tls.servername ?? options.host;
      this.connectOptions = {
        host: dial,
        port: options.port,
        // RFC 6066 3: SNI carries host names only, never an IP literal.
        servername: net.isIP(servername) === 0 ? servername : undefined,
        ca: options.tls.ca as tls.ConnectionOptions['ca'],
        rejectUnauthorized: options.tls.rejectUnauthorized ?? true,
        ALPNProtocols: ['http/1.1'],
      };
    }
  }

  /**
   * Sends a request; the handler hears the outcome. Never throws for socket or protocol trouble.
   * `fresh`: on a new connection, not a pooled one (a resend after a pooled one turned out closed).
   */
  request(request: UpstreamRequest, handler: UpstreamResponseHandler, timeouts: UpstreamTimeouts = this.timeouts, fresh = false): UpstreamExchange {
    const exchange = new UpstreamExchange(request, handler, timeouts, this);
    if (this.closed || this.options.refusal !== undefined) {
      exchange.ended = true;
      const error = this.closed ? new UpstreamClientError('UPSTREAM_POOL_CLOSED', 'the upstream pool is closed') : refused(this.options.refusal as string);
      queueMicrotask(() => handler.onError(error));
      return exchange;
    }
    const connection = (fresh ? undefined : this.takeIdle()) ?? (this.open.size < this.maxConnections ? this.connect() : undefined);
    if (connection !== undefined) connection.assign(exchange);
    else this.enqueue(exchange);
    return exchange;
  }

  get stats(): UpstreamPoolStats {
    return { open: this.open.size, idle: this.idle.length, queued: this.queue.length };
  }

  release(connection: UpstreamConnection): void {
    if (this.closed || connection.closed) {
      connection.destroy();
      return;
    }
    const next = this.queue.shift();
    if (next !== undefined) {
      clearTimeout(next.queueTimer);
      connection.assign(next);
      return;
    }
    connection.park();
    this.idle.push(connection);
  }

  forget(connection: UpstreamConnection): void {
    if (!this.open.delete(connection)) return;
    const at = this.idle.indexOf(connection);
    if (at !== -1) this.idle.splice(at, 1);
    // A slot is free: the first queued exchange gets a new connection.
    if (!this.closed && this.queue.length > 0 && this.open.size < this.maxConnections) {
      const next = this.queue.shift() as UpstreamExchange;
      clearTimeout(next.queueTimer);
      this.connect().assign(next);
    }
  }

  dequeue(exchange: UpstreamExchange): void {
    clearTimeout(exchange.queueTimer);
    const at = this.queue.indexOf(exchange);
    if (at !== -1) this.queue.splice(at, 1);
  }

  /**
   * Closes the idle connections now; the pool stays usable (a pool nobody references any more is
   * left to its in-flight exchanges, whose connections close after their keep-alive time).
   */
  closeIdle(): void {
    for (const connection of this.idle.splice(0)) connection.destroy();
  }

  /** Closes idle connections now and busy ones as their exchanges end; queued exchanges fail. */
  close(): void {
    this.closed = true;
    for (const connection of this.idle.splice(0)) connection.destroy();
    for (const exchange of this.queue.splice(0)) {
      clearTimeout(exchange.queueTimer);
      exchange.ended = true;
      exchange.handler.onError(new UpstreamClientError('UPSTREAM_POOL_CLOSED', 'the upstream pool is closed'));
    }
  }

  /** The most recently released idle connection that is still open (LIFO). */
  private takeIdle(): UpstreamConnection | undefined {
    let connection = this.idle.pop();
    // One closed a moment ago (the upstream's FIN) is still listed until its 'close' event.
    while (connection !== undefined && connection.closed) connection = this.idle.pop();
    return connection;
  }

  private connect(): UpstreamConnection {
    const secure = this.options.tls !== undefined;
    const connection = new UpstreamConnection(secure ? this.openTls : this.openPlain, this, secure);
    this.open.add(connection);
    return connection;
  }

  private readonly openPlain = (onread: net.OnReadOpts | undefined): net.Socket =>
    net.connect({ ...(this.connectOptions as net.NetConnectOpts), onread } as net.NetConnectOpts);

  private readonly openTls = (): net.Socket => {
    const session = this.tlsSession;
    const options = this.connectOptions as tls.ConnectionOptions;
    const socket = tls.connect(session === undefined ? options : { ...options, session });
    socket.on('session', this.onTlsSession);
    return socket;
  };

  /** Waits for a free connection, at most the connect timeout. */
  private enqueue(exchange: UpstreamExchange): void {
    this.queue.push(exchange);
    if (exchange.timeouts.connectMs > 0) {
      exchange.queueTimer = setTimeout(() => {
        if (exchange.ended) return;
        this.dequeue(exchange);
        exchange.ended = true;
        exchange.handler.onError(new UpstreamClientError('UPSTREAM_CONNECT_TIMEOUT', 'no free upstream connection within the connect timeout'));
      }, exchange.timeouts.connectMs);
      exchange.queueTimer.unref();
    }
  }
}

/** The error of a pool that must not connect; its cause carries the reason to the log line. */
function refused(reason: string): UpstreamClientError {
  return new UpstreamClientError('UPSTREAM_REFUSED', reason, { cause: new Error(reason) });
}
