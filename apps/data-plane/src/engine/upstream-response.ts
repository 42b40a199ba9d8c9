import { ServerResponse, STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import { Readable, type Writable } from 'node:stream';
import { GatewayError, type GatewayErrorCode } from './error-catalogue';
import type { Exchange } from './exchange';
import { headersOf, rawHeaderValue } from './raw-headers';
import { copyOf } from './upstream-client/read-buffer';
import type { ResponseHead } from './upstream-client/response-parser';
import type { UpstreamClientError } from './upstream-client/upstream-client-error';
import type { UpstreamExchange, UpstreamResponseHandler } from './upstream-client/upstream-connection';
import { WRITE_BUFFERS } from './upstream-client/write-buffer-pool';
import type { UpstreamTarget } from './upstream-target';
import { settleTarget } from './upstreams/target-choice';

/** Called once per upstream attempt: with an error, or with the response once its head arrived. */
export type UpstreamAttemptCallback = (error: GatewayError | null, response: UpstreamResponse | null) => void;

/** Body bytes held while nobody reads them yet (response hooks running) before the upstream is paused. */
const PENDING_PAUSE_BYTES = 64 * 1024;

/** A whole body up to this size goes to the client in one string write with the head (writeWholeBody). */
const ONE_WRITE_BODY_MAX = 4 * 1024;

/** The lean client's codes as the gateway's catalogue: the timeouts are 504, everything else 502. */
export function gatewayErrorOf(error: UpstreamClientError): GatewayError {
  // The node error (ECONNREFUSED, a certificate error) or the refusal's reason (the CA file and why)
  // is what an operator needs in the log.
  const cause = (error.code === 'UPSTREAM_SOCKET' || error.code === 'UPSTREAM_REFUSED') && error.cause !== undefined ? error.cause : error;
  if (error.code === 'UPSTREAM_CONNECT_TIMEOUT') return new GatewayError('UPSTREAM_CONNECT_TIMEOUT', undefined, { cause });
  if (error.code === 'UPSTREAM_FIRST_BYTE_TIMEOUT' || error.code === 'UPSTREAM_IDLE_TIMEOUT') return new GatewayError('UPSTREAM_TIMEOUT', undefined, { cause });
  return new GatewayError('UPSTREAM_ERROR', undefined, { cause });
}

/**
 * The last (usually the only) slice of a small body, written so that node:http sends head and body
 * in one socket write: a ServerResponse prepends its pending head to a string chunk, but queues a
 * Buffer as a chunk of its own, and its first write corks the socket until the next tick, so head,
 * body and end's empty chunk went out as one three-chunk writev, about 12k instructions a request
 * in node's C++ alone (bench README, "One write for the client's response"). Corked by us, node
 * does not cork it for a tick and our uncork sends the one chunk at once; end() then has nothing
 * left to flush. latin1 maps each byte to one character and back: the bytes are the upstream's.
 * Only for node:http's own response (an HTTP/2 response's socket is the session's).
 */
function writeWholeBody(sink: ServerResponse, chunk: Buffer): void {
  const socket = sink.socket;
  socket?.cork();
  sink.write(chunk.toString('latin1'), 'latin1');
  socket?.uncork();
}

/** The body as a stream, for response hooks that read or wrap it (transform, cache capture). */
class UpstreamBodyStream extends Readable {
  constructor(private readonly response: UpstreamResponse) {
    super();
  }

  override _read(): void {
    this.response.resumeReading();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.response.destroy();
    callback(error);
  }
}

/**
 * One upstream attempt of an exchange: the lean client's handler while the request is out, then,
 * once the head arrived, the response the pipeline sees (status, raw headers, a lazily built header
 * map) and the source of its body. One object per attempt, its methods shared: no closure per request.
 *
 * The body goes one of three ways: straight into the client's response (`pipeTo`, the usual case,
 * with backpressure both ways), into a Readable a response hook asked for (`stream`), or nowhere
 * (`resume`: a discarded answer read to its end so the connection is reused). Bytes arriving before
 * either is chosen (response hooks still running) are held, and the upstream paused past 64 KiB.
 */
/** The callback of a response made complete (UpstreamResponse.complete): there is no call to answer. */
const ignoreAttempt: UpstreamAttemptCallback = () => undefined;

export class UpstreamResponse implements UpstreamResponseHandler {
  /** The lean client's side of this attempt; set right after the request is sent. */
  upstream: UpstreamExchange | undefined = undefined;
  /** Where this attempt was sent (a named upstream's chosen target, or the route's own). */
  target: UpstreamTarget | undefined = undefined;
  statusCode = 0;
  statusMessage = '';
  /** '1.1' or '1.0'. */
  httpVersion = '1.1';
  rawHeaders: string[] = [];
  trailers: string[] = [];
  /** The whole body arrived (the response may still be being written to the client). */
  complete = false;
  /** Body bytes received so far (the timeout policy's progress measure for idle gaps). */
  bytesRead = 0;
  /** The head or an error went to `done`: later failures belong to the body, not the call. */
  private settled = false;
  /** The body was cut (an upstream error after the head, a timeout, a failed hook). */
  private cut = false;
  /** The body is not wanted (discarded, or the stream was detached): nothing more goes anywhere. */
  private discarding = false;
  private paused = false;
  private sink: ServerResponse | undefined = undefined;
  private readable: UpstreamBodyStream | undefined = undefined;
  private pending: Buffer[] | undefined = undefined;
  private pendingBytes = 0;
  private parsedHeaders: IncomingHttpHeaders | undefined = undefined;
  private onSinkDrain: (() => void) | undefined = undefined;
  private cutTarget: ServerResponse | undefined = undefined;
  private waitingForSink = false;
  /** The client's body streams into this attempt (forward's listeners on the request). */
  streamsClientBody = false;

  /**
   * A complete response a policy answers with in place of the upstream's (the cache replaying a
   * stored entry from its upstream wrapper): no connection behind it; the dispatcher and the
   * response phase treat it like any upstream response.
   */
  static complete(exchange: Exchange, statusCode: number, rawHeaders: string[], body: Buffer | undefined): UpstreamResponse {
    const response = new UpstreamResponse(exchange, ignoreAttempt, undefined);
    response.statusCode = statusCode;
    response.statusMessage = STATUS_CODES[statusCode] ?? '';
    response.rawHeaders = rawHeaders;
    response.settled = true;
    if (body !== undefined && body.length > 0) {
      response.pending = [body];
      response.pendingBytes = body.length;
      response.bytesRead = body.length;
    }
    response.complete = true;
    return response;
  }

  constructor(
    readonly exchange: Exchange,
    private readonly done: UpstreamAttemptCallback,
    /** A failure on a reused connection before any response byte may be answered by sending again (once). */
    private readonly resend: ((attempt: UpstreamResponse) => boolean) | undefined,
  ) {}

  /** node's header map (lower-case names, repeated fields joined as node joins them), built on first use. */
  get headers(): IncomingHttpHeaders {
    return (this.parsedHeaders ??= headersOf(this.rawHeaders));
  }

  /** One header's value without building the map (first occurrence, case-insensitive). */
  header(name: string): string | undefined {
    return this.parsedHeaders === undefined ? rawHeaderValue(this.rawHeaders, name) : (this.parsedHeaders[name] as string | undefined);
  }

  onResponse(head: ResponseHead): void {
    this.statusCode = head.statusCode;
    this.statusMessage = head.statusMessage;
    this.httpVersion = head.httpMinor === 1 ? '1.1' : '1.0';
    this.rawHeaders = head.rawHeaders;
    this.settled = true;
    this.exchange.upstreamResponse = this;
    settleTarget(this.exchange, head.statusCode >= 500);
    this.done(null, this);
  }

  /**
   * `chunk` is lent (the shared read buffer): every way on keeps a copy. node's write may hold its
   * chunk past this call (corked until the next tick on a response's first write, or a socket that
   * took part of it); the small last slice goes as a string, which is the copy, and a larger one
   * into a pooled buffer that comes back when node has written it.
   *
   * A full client pauses the upstream only while more of the body is to come. After the last slice
   * there is nothing left to hold back, and the connection resumes reading as it goes back to the
   * pool within this read: a pause then was a read stop and start on the upstream socket, two
   * epoll_ctl calls at the next poll, and a 'drain' listener, on every response whose head and body
   * pass node's 16 KiB high-water mark (docs/data-plane.md, "The 16 KiB tail: the loop and the write path").
   */
  onData(chunk: Buffer, last: boolean): void {
    this.bytesRead += chunk.length;
    if (this.discarding) return;
    const sink = this.sink;
    if (sink !== undefined) {
      const http1 = sink instanceof ServerResponse;
      if (last && chunk.length <= ONE_WRITE_BODY_MAX && http1) writeWholeBody(sink, chunk);
      // node:http's response copies into a recycled buffer, not a new backing store per slice
      // (write-buffer-pool.ts: what those cost the tail).
      // The other sink is HTTP/2's compatibility response, typed as node:http's here.
      else if (!(http1 ? WRITE_BUFFERS.write(sink, chunk) : (sink as Writable).write(copyOf(chunk))) && !last) this.waitForSink(sink);
      return;
    }
    const readable = this.readable;
    if (readable !== undefined) {
      if (!readable.push(copyOf(chunk))) this.pauseReading();
      return;
    }
    (this.pending ??= []).push(copyOf(chunk));
    this.pendingBytes += chunk.length;
    if (this.pendingBytes > PENDING_PAUSE_BYTES) this.pauseReading();
  }

  onEnd(trailers: string[]): void {
    this.complete = true;
    this.trailers = trailers;
    this.releaseClientBody();
    if (this.discarding) return;
    if (this.sink !== undefined) this.sink.end();
    else if (this.readable !== undefined) this.readable.push(null);
  }

  onError(error: UpstreamClientError): void {
    if (!this.settled) {
      if (error.reusedConnection && this.resend !== undefined && this.resend(this)) return;
      this.settled = true;
      this.releaseClientBody();
      settleTarget(this.exchange, true);
      this.done(gatewayErrorOf(error), null);
      return;
    }
    this.cutBody();
  }

  /** The client's body may flow again (the upstream socket drained). */
  onDrain(): void {
    this.exchange.req.resume();
  }

  /**
   * Ends the attempt from outside (a deadline, the body limit, the client gone): before the head the
   * call fails with `code`; after it the body is cut, and so is the client's response.
   */
  cancel(code: GatewayErrorCode): void {
    if (this.complete || this.cut) return;
    this.upstream?.abort();
    this.releaseClientBody();
    if (!this.settled) {
      this.settled = true;
      // A deadline counts against the target; settleTarget ignores a client that left.
      settleTarget(this.exchange, true);
      this.done(new GatewayError(code), null);
      return;
    }
    this.cutBody();
  }

  /** Writes the body into the client's response as it arrives, with backpressure both ways. */
  pipeTo(res: ServerResponse): void {
    this.sink = res;
    if (this.cut) {
      res.destroy();
      return;
    }
    const pending = this.pending;
    if (pending !== undefined) {
      this.pending = undefined;
      this.pendingBytes = 0;
      let flowing = true;
      for (let i = 0; i < pending.length; i += 1) flowing = res.write(pending[i] as Buffer);
      if (!flowing && !this.complete) {
        this.waitForSink(res);
        return;
      }
    }
    if (this.complete) res.end();
    else this.resumeReading();
  }

  /** The body as a Readable (for response hooks); the same stream on every call. */
  stream(): Readable {
    let readable = this.readable;
    if (readable !== undefined) return readable;
    readable = new UpstreamBodyStream(this);
    this.readable = readable;
    const pending = this.pending;
    this.pending = undefined;
    this.pendingBytes = 0;
    if (pending !== undefined) for (let i = 0; i < pending.length; i += 1) readable.push(pending[i]);
    if (this.cut) readable.destroy();
    else if (this.complete) readable.push(null);
    return readable;
  }

  /**
   * The client's response is fed from a hook's stream over this body (`stream()` piped through a
   * transform or a capture): a cut body must cut it too, as a cut piped body does.
   */
  cutWith(res: ServerResponse): void {
    if (this.cut) res.destroy();
    else this.cutTarget = res;
  }

  /** Reads and drops the rest of the body (a discarded answer), so its connection can be reused. */
  resume(): void {
    this.discarding = true;
    this.pending = undefined;
    this.pendingBytes = 0;
    this.resumeReading();
  }

  /** Gives the body up: the upstream connection is closed, nothing more is delivered. */
  destroy(): void {
    this.discarding = true;
    this.pending = undefined;
    if (!this.complete) this.upstream?.abort();
  }

  /** Stops the body for good without cutting the client's response, which the caller ends (a draining event stream). */
  finishEarly(): void {
    this.sink = undefined;
    this.readable?.unpipe();
    this.destroy();
  }

  pauseReading(): void {
    if (this.paused) return;
    this.paused = true;
    this.upstream?.pause();
  }

  resumeReading(): void {
    if (!this.paused) return;
    this.paused = false;
    this.upstream?.resume();
  }

  /**
   * An attempt that ended before the client's body did reads the rest and drops it (forward's
   * listener ignores it): a client paused for backpressure would otherwise stall its connection.
   */
  private releaseClientBody(): void {
    if (this.streamsClientBody && !this.exchange.req.complete) this.exchange.req.resume();
  }

  private waitForSink(sink: ServerResponse): void {
    // Several slices of one read may each find the client full: one listener is enough.
    if (this.waitingForSink) return;
    this.waitingForSink = true;
    this.pauseReading();
    sink.once('drain', (this.onSinkDrain ??= () => this.afterSinkDrain()));
  }

  private afterSinkDrain(): void {
    this.waitingForSink = false;
    // onEnd has ended the client's response already when the body completed meanwhile.
    if (!this.complete) this.resumeReading();
  }

  /** A cut body must not look complete to the client: its response is destroyed, not ended. */
  private cutBody(): void {
    this.cut = true;
    this.releaseClientBody();
    this.pending = undefined;
    if (this.discarding) return;
    if (this.sink !== undefined) this.sink.destroy();
    // Closed without an error, as node's IncomingMessage when its socket is cut: readers see a close
    // without an end (the cache stores nothing, a transform fails with 502), and nobody gets an
    // 'error' they did not listen for.
    else if (this.readable !== undefined) this.readable.destroy();
    this.cutTarget?.destroy();
  }
}
