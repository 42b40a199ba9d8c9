import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { closeFrame, FrameBoundary, GOING_AWAY } from './websocket-frames';

/** How long the peers get to finish a frame under way and answer the close frames before the sockets are destroyed. */
const CLOSE_GRACE_MS = 2000;

/**
 * The client's end of a relayed connection: its TCP or TLS socket after an HTTP/1.1 upgrade, or
 * the HTTP/2 stream of an extended CONNECT (RFC 8441: the stream carries the WebSocket bytes, its
 * END_STREAM is the TCP FIN). Both time out on inactivity in either direction.
 */
export type ClientEnd = Duplex & { setTimeout(ms: number, callback?: () => void): unknown };

/** One direction of the relay: bytes read from `from` are written to `to`. */
interface Direction {
  readonly from: Duplex;
  readonly to: Duplex;
  readonly frames: FrameBoundary;
  /** The close frame this direction's receiver gets when the gateway ends the connection. */
  readonly close: Buffer;
  /** The close frame went out: later bytes from `from` are dropped. */
  closed: boolean;
}

/**
 * An upgraded connection: the client's socket and the upstream's joined, bytes relayed both ways
 * unchanged (extensions and subprotocols are the peers' business). The gateway speaks only to
 * end it: `goAway()` sends each side a 1001 close frame at the next frame boundary of the bytes
 * flowing to it, then closes both sockets.
 */
export class WebSocketConnection {
  private readonly up: Direction;
  private readonly down: Direction;
  private closing = false;
  private graceTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly routeId: string,
    private readonly client: ClientEnd,
    private readonly upstream: Socket,
    idleTimeoutMs: number,
    onClosed: (connection: WebSocketConnection) => void,
  ) {
    this.up = { from: client, to: upstream, frames: new FrameBoundary(), close: closeFrame(GOING_AWAY, true), closed: false };
    this.down = { from: upstream, to: client, frames: new FrameBoundary(), close: closeFrame(GOING_AWAY, false), closed: false };
    let closedOnce = false;
    const closeBoth = (): void => {
      client.destroy();
      upstream.destroy();
      clearTimeout(this.graceTimer);
      if (closedOnce) return;
      closedOnce = true;
      onClosed(this);
    };
    for (const socket of [client, upstream]) {
      socket.on('error', closeBoth);
      socket.on('close', closeBoth);
    }
    // Half-closes are passed on: a peer that ends its side after the close handshake ends the other.
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    // Any byte either way counts as activity on the client's socket (it is read from or written to).
    upstream.setTimeout(0);
    client.setTimeout(idleTimeoutMs, () => this.goAway());
    // An HTTP/2 stream has no Nagle of its own (its session's socket is the listener's business).
    if ('setNoDelay' in client) (client as Socket).setNoDelay(true);
    upstream.setNoDelay(true);
  }

  /** Starts relaying; the heads are bytes each side sent along with the handshake. */
  start(clientHead: Buffer, upstreamHead: Buffer): void {
    if (upstreamHead.length > 0) this.relay(this.down, upstreamHead);
    if (clientHead.length > 0) this.relay(this.up, clientHead);
    this.client.on('data', (chunk: Buffer) => this.relay(this.up, chunk));
    this.upstream.on('data', (chunk: Buffer) => this.relay(this.down, chunk));
  }

  /** Ends the connection for both peers with close code 1001 (reload removed the route, drain, idle). */
  goAway(): void {
    if (this.closing) return;
    this.closing = true;
    this.client.setTimeout(0);
    this.graceTimer = setTimeout(() => {
      this.client.destroy();
      this.upstream.destroy();
    }, CLOSE_GRACE_MS);
    this.graceTimer.unref();
    for (const direction of [this.up, this.down]) if (direction.frames.atBoundary) this.sendClose(direction);
  }

  private relay(direction: Direction, chunk: Buffer): void {
    if (direction.closed) return;
    if (!this.closing) {
      direction.frames.advance(chunk);
      if (!direction.to.write(chunk)) {
        direction.from.pause();
        direction.to.once('drain', () => direction.from.resume());
      }
      return;
    }
    // Closing: only the rest of the frame under way still goes through, then the close frame.
    const taken = direction.frames.advance(chunk, true);
    if (taken > 0) direction.to.write(chunk.subarray(0, taken));
    if (direction.frames.atBoundary) this.sendClose(direction);
  }

  private sendClose(direction: Direction): void {
    if (direction.closed) return;
    direction.closed = true;
    direction.from.resume();
    direction.to.end(direction.close);
  }
}
