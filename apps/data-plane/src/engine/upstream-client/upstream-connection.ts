import type { OnReadOpts, Socket } from 'node:net';
import { copyOf, sharedReadOptions } from './read-buffer';
import { ResponseParser, type ResponseHead, type ResponseParserLimits, type ResponseSink } from './response-parser';
import { INLINE_BODY_MAX, serializeRequestHead, type UpstreamRequest } from './request-head';
import { UpstreamClientError } from './upstream-client-error';

/** Per-request timeouts in ms (0: none). */
export interface UpstreamTimeouts {
  /** Until the connection (and TLS handshake) is up, or a pooled connection is free. */
  readonly connectMs: number;
  /** From the last request byte written until the first response byte. */
  readonly firstByteMs: number;
  /** Longest silence between response bytes once the response started. */
  readonly idleMs: number;
}

/**
 * What the caller of `UpstreamPool.request` receives, on one object it supplies (a class of its own
 * with these methods costs no closure per request). After `onEnd`, `onError` or `onUpgrade`
 * nothing more is called; after the caller's `abort()` nothing at all.
 */
export interface UpstreamResponseHandler {
  /** The final response head (1xx interim responses are skipped). */
  onResponse(head: ResponseHead): void;
  /**
   * A body slice, straight from the socket's read (not copied) and borrowed: on a plain connection
   * the bytes are overwritten by the next read of any upstream socket (read-buffer.ts), so whatever
   * outlives this call (a buffered or queued write, a stream's queue) must be a copy (`copyOf`).
   * `last`: the body ends with this slice (a Content-Length body read to its end; the end follows at once).
   */
  onData(chunk: Buffer, last: boolean): void;
  /** The response is complete; trailers as a flat list (empty for most responses). */
  onEnd(trailers: string[]): void;
  onError(error: UpstreamClientError): void;
  /**
   * A 101 Switching Protocols: the socket now belongs to the caller (out of the pool, no timeouts,
   * no listeners of ours) with the bytes that followed the head. Without this method a 101 is an error.
   */
  onUpgrade?(head: ResponseHead, socket: Socket, rest: Buffer): void;
  /** A streamed request body may be written again (after `write()` returned false). */
  onDrain?(): void;
}

/** What a connection needs from its pool (an interface, so the two files do not import each other). */
export interface ConnectionOwner {
  readonly limits: ResponseParserLimits;
  readonly hostHeader: string;
  readonly keepAliveMs: number;
  /** The connection finished an exchange cleanly and may serve another one. */
  release(connection: UpstreamConnection): void;
  /** The connection is gone (closed, failed or upgraded). */
  forget(connection: UpstreamConnection): void;
  /** A queued exchange gave up before it got a connection. */
  dequeue(exchange: UpstreamExchange): void;
}

const EMPTY = Buffer.alloc(0);
const NO_TRAILERS: string[] = [];
const CRLF = '\r\n';
const LAST_CHUNK = '0\r\n\r\n';

/**
 * One request/response on an upstream connection, as the caller sees it: stream a request body,
 * pause or resume the response, abort. Calls after the exchange ended are ignored, so a late
 * abort can never cut the next request on the same connection.
 */
export class UpstreamExchange {
  /** Set once the exchange ended (complete, failed, upgraded or aborted). */
  ended = false;
  connection: UpstreamConnection | undefined = undefined;
  /** Streamed body chunks written before a connection was free (the exchange was queued). */
  queuedBody: Buffer[] | undefined = undefined;
  queuedEnd = false;
  queueTimer: NodeJS.Timeout | undefined = undefined;
  /** Streamed body bytes written so far (checked against a declared length). */
  bodyBytes = 0;

  constructor(
    readonly request: UpstreamRequest,
    readonly handler: UpstreamResponseHandler,
    readonly timeouts: UpstreamTimeouts,
    readonly owner: ConnectionOwner,
  ) {}

  /** Writes a chunk of a streamed body; false when the caller should wait for `onDrain`. */
  write(chunk: Buffer): boolean {
    if (this.ended) return false;
    if (this.connection === undefined) {
      (this.queuedBody ??= []).push(chunk);
      return false;
    }
    return this.connection.writeBody(chunk);
  }

  /** Ends a streamed body (with an optional last chunk). */
  end(chunk?: Buffer): void {
    if (this.ended) return;
    if (chunk !== undefined && chunk.length > 0) this.write(chunk);
    // The write may have failed the exchange (a body longer than declared).
    if (this.ended) return;
    if (this.connection === undefined) this.queuedEnd = true;
    else this.connection.endBody();
  }

  /** Stops reading the response (the client is slow): no idle timeout runs while paused. */
  pause(): void {
    if (!this.ended) this.connection?.pause();
  }

  resume(): void {
    if (!this.ended) this.connection?.resume();
  }

  /** Gives up: the connection is closed (its state is unknown) and no callback follows. */
  abort(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.connection === undefined) this.owner.dequeue(this);
    else this.connection.destroy();
  }
}

/**
 * One upstream socket: sends one request at a time (no pipelining) and parses its response. A
 * connection goes back to the pool only when its response was complete, its request fully sent,
 * keep-alive was agreed, and not one byte more arrived; otherwise it is closed. Bytes arriving on
 * an idle connection close it too: they can only be a response to no request (queue poisoning).
 */
export class UpstreamConnection implements ResponseSink {
  private readonly parser: ResponseParser;
  private exchange: UpstreamExchange | undefined = undefined;
  private connected = false;
  private gotFirstByte = false;
  private requestSent = false;
  private paused = false;
  private head: ResponseHead | undefined = undefined;
  private trailers: string[] | undefined = undefined;
  /** Exchanges this connection has carried (a failure before any byte on a reused one may be a stale close). */
  private served = 0;
  /** The timeout armed on the socket (ms, 0: none). */
  private armedTimeout = 0;
  /** The timeout the current phase asked for (0: none; a 'timeout' then is the keep-alive timer left armed). */
  private phaseTimeout = 0;
  private socketError: Error | undefined = undefined;
  /** The socket went to an upgrade's caller: reads are theirs (pushed as node's own reads would be). */
  private handedOver = false;
  closed = false;
  readonly socket: Socket;

  /**
   * `open` makes the socket: with `onread` options (reads into the shared buffer) for a plain
   * connection; a TLS one (`secure`) reads as a stream (see read-buffer.ts).
   */
  constructor(
    open: (onread: OnReadOpts | undefined) => Socket,
    private readonly owner: ConnectionOwner,
    secure: boolean,
  ) {
    this.parser = new ResponseParser(this, owner.limits);
    const socket = open(secure ? undefined : sharedReadOptions((data) => this.onRead(data)));
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on(secure ? 'secureConnect' : 'connect', () => this.onConnect());
    // TLS: node's TLSWrap may deliver decrypted bytes inside a write (ClearOut), which could land
    // in the shared buffer while another read's slices are in use; its reads keep their own Buffers.
    if (secure) socket.on('data', (data: Buffer) => this.onData(data));
    socket.on('end', () => this.onEnd());
    socket.on('error', (error: Error) => this.onSocketError(error));
    socket.on('close', () => this.onClose());
    socket.on('timeout', () => this.onTimeout());
    socket.on('drain', () => this.onDrain());
  }

  get busy(): boolean {
    return this.exchange !== undefined;
  }

  /** Starts an exchange on this connection: writes the head (with a small body in the same buffer). */
  assign(exchange: UpstreamExchange): void {
    const head = serializeRequestHead(exchange.request, this.owner.hostHeader);
    if (typeof head !== 'string') {
      // Nothing was written: the connection stays clean and goes back to the pool.
      exchange.ended = true;
      this.owner.release(this);
      exchange.handler.onError(head);
      return;
    }
    this.exchange = exchange;
    exchange.connection = this;
    this.gotFirstByte = false;
    this.requestSent = false;
    this.paused = false;
    this.head = undefined;
    this.trailers = undefined;
    this.served += 1;
    this.parser.start(exchange.request.method === 'HEAD');
    this.setTimeout(this.connected ? exchange.timeouts.firstByteMs : exchange.timeouts.connectMs);
    const { body, streamedBody } = exchange.request;
    if (streamedBody === undefined) {
      if (body === undefined || body.length === 0) {
        this.socket.write(head, 'latin1');
      } else if (body.length <= INLINE_BODY_MAX) {
        const out = Buffer.allocUnsafe(Buffer.byteLength(head, 'latin1') + body.length);
        const at = out.write(head, 0, 'latin1');
        body.copy(out, at);
        this.socket.write(out);
      } else {
        this.socket.cork();
        this.socket.write(head, 'latin1');
        this.socket.write(body);
        this.socket.uncork();
      }
      this.requestSent = true;
      return;
    }
    this.socket.write(head, 'latin1');
    const queued = exchange.queuedBody;
    exchange.queuedBody = undefined;
    if (queued !== undefined) for (const chunk of queued) if (!this.writeBody(chunk)) break;
    if (exchange.queuedEnd && !exchange.ended) this.endBody();
    else if (queued !== undefined && !exchange.ended) exchange.handler.onDrain?.();
  }

  writeBody(chunk: Buffer): boolean {
    const exchange = this.exchange;
    if (exchange === undefined) return false;
    if (chunk.length === 0) return true;
    const declared = exchange.request.streamedBody;
    exchange.bodyBytes += chunk.length;
    if (declared === 'chunked') {
      this.socket.cork();
      this.socket.write(`${chunk.length.toString(16)}${CRLF}`, 'latin1');
      this.socket.write(chunk);
      const flushed = this.socket.write(CRLF, 'latin1');
      this.socket.uncork();
      return flushed;
    }
    if (typeof declared !== 'number' || exchange.bodyBytes > declared) {
      this.fail(new UpstreamClientError('UPSTREAM_INVALID_REQUEST', 'request body longer than declared'));
      return false;
    }
    return this.socket.write(chunk);
  }

  endBody(): void {
    const exchange = this.exchange;
    if (exchange === undefined) return;
    const declared = exchange.request.streamedBody;
    if (declared === 'chunked') this.socket.write(LAST_CHUNK, 'latin1');
    else if (declared !== exchange.bodyBytes) {
      this.fail(new UpstreamClientError('UPSTREAM_INVALID_REQUEST', 'request body shorter than declared'));
      return;
    }
    this.requestSent = true;
    // A response that completed before the body was sent cannot reuse the connection anyway.
  }

  pause(): void {
    this.paused = true;
    this.socket.pause();
    this.setTimeout(0);
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    const exchange = this.exchange;
    if (exchange !== undefined) this.setTimeout(this.gotFirstByte ? exchange.timeouts.idleMs : exchange.timeouts.firstByteMs);
    this.socket.resume();
  }

  destroy(): void {
    this.exchange = undefined;
    this.parser.stop();
    this.closed = true;
    this.socket.destroy();
  }

  /** Waits in the pool: closed after the pool's keep-alive time or on any byte or close. */
  park(): void {
    this.setTimeout(this.owner.keepAliveMs);
  }

  onResponseHead(head: ResponseHead): void {
    this.head = head;
  }

  onResponseBody(chunk: Buffer): void {
    const exchange = this.exchange;
    if (exchange === undefined) return;
    this.deliverHead(exchange);
    // The parser marks the response complete before it hands over the slice that completes it.
    if (!exchange.ended) exchange.handler.onData(chunk, this.parser.complete);
  }

  onResponseEnd(trailers: string[]): void {
    this.trailers = trailers;
  }

  /** The head goes to the caller on the first body byte or at the end, so the handler sees it once. */
  private deliverHead(exchange: UpstreamExchange): void {
    const head = this.head;
    if (head === undefined) return;
    this.head = undefined;
    exchange.handler.onResponse(head);
  }

  private setTimeout(ms: number): void {
    this.phaseTimeout = ms;
    // A phase without a timeout of its own (the data plane's first byte and idle gaps, which its
    // deadline wheel times) leaves the keep-alive timer armed: socket activity pushes it back and
    // onTimeout ignores it. Clearing it here and arming a new one at park() cost node a Timeout
    // object and two timer-list updates on every request.
    if (ms === this.armedTimeout || (ms === 0 && this.armedTimeout === this.owner.keepAliveMs)) return;
    this.armedTimeout = ms;
    this.socket.setTimeout(ms);
  }

  private onConnect(): void {
    this.connected = true;
    const exchange = this.exchange;
    if (exchange !== undefined) this.setTimeout(exchange.timeouts.firstByteMs);
  }

  /** A read into the shared buffer; false pauses the socket (the upgraded protocol's backpressure). */
  private onRead(data: Buffer): boolean {
    if (this.handedOver) return this.socket.push(copyOf(data));
    this.onData(data);
    return true;
  }

  private onData(data: Buffer): void {
    const exchange = this.exchange;
    if (exchange === undefined) {
      this.destroy();
      return;
    }
    if (!this.gotFirstByte) {
      this.gotFirstByte = true;
      this.setTimeout(exchange.timeouts.idleMs);
    }
    const error = this.parser.execute(data);
    if (error !== undefined) {
      this.fail(error);
      return;
    }
    // A handler may have aborted the exchange from a callback: the connection is gone then.
    if (this.exchange !== exchange) return;
    // A head with no body byte yet in this read is delivered now (a 101 goes to onUpgrade instead).
    if (!exchange.ended && !this.parser.upgraded) this.deliverHead(exchange);
    if (this.exchange === exchange && this.parser.complete) this.complete();
  }

  private onEnd(): void {
    const exchange = this.exchange;
    if (exchange === undefined) {
      this.destroy();
      return;
    }
    const error = this.parser.finish();
    if (error !== undefined) this.fail(error);
    else if (this.exchange === exchange && this.parser.complete) this.complete();
  }

  /** The response is complete: decide the connection's fate first, then tell the caller. */
  private complete(): void {
    const exchange = this.exchange as UpstreamExchange;
    this.exchange = undefined;
    const ended = exchange.ended;
    exchange.ended = true;
    if (this.parser.upgraded) {
      this.completeUpgrade(exchange, ended);
      return;
    }
    // Read before the release: a queued exchange may start on this connection right away.
    const head = this.head;
    const trailers = this.trailers ?? NO_TRAILERS;
    this.head = undefined;
    // Bytes after the response in the same read were refused by the parser; later ones close the
    // idle connection (onData without an exchange).
    // Never after a HEAD: an upstream that sends the body anyway (it framed one) may send it late,
    // after the next request went out on this connection, where it would read as that answer.
    const reusable = this.parser.keepAlive && this.requestSent && !this.closed && exchange.request.method !== 'HEAD';
    // A caller that paused the response may resume it only after the end (its resume() is then
    // ignored): the pooled connection must read again, for its next exchange and to see stray bytes.
    if (this.paused) {
      this.paused = false;
      this.socket.resume();
    }
    if (reusable) this.owner.release(this);
    else this.destroy();
    if (ended) return;
    if (head !== undefined) exchange.handler.onResponse(head);
    exchange.handler.onEnd(trailers);
  }

  private completeUpgrade(exchange: UpstreamExchange, ended: boolean): void {
    const head = this.head as ResponseHead;
    const onUpgrade = exchange.handler.onUpgrade;
    if (ended || onUpgrade === undefined) {
      this.destroy();
      if (!ended) exchange.handler.onError(new UpstreamClientError('UPSTREAM_PROTOCOL', '101 Switching Protocols to a request that cannot upgrade'));
      return;
    }
    const socket = this.socket;
    this.closed = true;
    this.handedOver = true;
    socket.removeAllListeners();
    socket.setTimeout(0);
    // The caller owns the socket now; an error before it listens must still not crash the process.
    socket.on('error', () => undefined);
    this.owner.forget(this);
    onUpgrade.call(exchange.handler, head, socket, this.parser.leftover ?? EMPTY);
  }

  private fail(error: UpstreamClientError): void {
    const exchange = this.exchange;
    const firstByte = this.gotFirstByte;
    this.destroy();
    if (exchange === undefined || exchange.ended) return;
    exchange.ended = true;
    if (this.served > 1 && !firstByte) error.reusedConnection = true;
    exchange.handler.onError(error);
  }

  private onTimeout(): void {
    const exchange = this.exchange;
    if (exchange === undefined) {
      this.destroy();
      return;
    }
    // The keep-alive timer, left armed through a phase with no timeout (setTimeout): not this exchange's.
    if (this.phaseTimeout === 0) return;
    if (!this.connected) this.fail(new UpstreamClientError('UPSTREAM_CONNECT_TIMEOUT', 'no connection within the connect timeout'));
    else if (!this.gotFirstByte) this.fail(new UpstreamClientError('UPSTREAM_FIRST_BYTE_TIMEOUT', 'no response within the first-byte timeout'));
    else this.fail(new UpstreamClientError('UPSTREAM_IDLE_TIMEOUT', 'the response stalled longer than the idle timeout'));
  }

  private onSocketError(error: Error): void {
    this.socketError = error;
    this.fail(new UpstreamClientError('UPSTREAM_SOCKET', error.message, { cause: error }));
  }

  private onDrain(): void {
    const exchange = this.exchange;
    if (exchange !== undefined && !exchange.ended) exchange.handler.onDrain?.();
  }

  private onClose(): void {
    this.closed = true;
    if (this.exchange !== undefined) {
      const cause = this.socketError;
      this.fail(
        cause === undefined
          ? new UpstreamClientError('UPSTREAM_CLOSED_EARLY', 'the upstream closed the connection before the response was complete')
          : new UpstreamClientError('UPSTREAM_SOCKET', cause.message, { cause }),
      );
    }
    this.owner.forget(this);
  }
}
