import type http from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OpenStreams } from './open-streams';
import type { OpenWebSockets } from './open-websockets';

/** How a data plane stops (DRAIN_DELAY_SECONDS and DRAIN_TIMEOUT_SECONDS through the CLI). */
export interface DrainTimings {
  /** How long it keeps serving, not ready, before it stops accepting: load balancers stop routing to it meanwhile. */
  delayMs: number;
  /** How long in-flight requests may take after that before they are cut. */
  timeoutMs: number;
}

/** Embedded use (tests, one-off scripts): stop at once, give in-flight requests 10 s. */
export const DEFAULT_DRAIN_TIMINGS: DrainTimings = { delayMs: 0, timeoutMs: 10_000 };

export interface DrainOutcome {
  /** Event streams ended when it stopped accepting. */
  streamsEnded: number;
  /** WebSocket connections closed (1001) when it stopped accepting. */
  webSocketsClosed: number;
  /** Connections still busy at the drain timeout, destroyed. */
  connectionsCut: number;
}

/**
 * A listener in front of the HTTP/1.1 server (the HTTPS one): it hands its HTTP/1.1 connections to
 * that server, which the drain already watches, and serves HTTP/2 sessions itself.
 */
export interface FrontListener {
  /** Stops accepting; resolves once its connections are gone. */
  close(): Promise<void>;
  /** Asks the connections it serves itself to finish (HTTP/2 GOAWAY). */
  drain(): void;
  /** Destroys those still open; returns how many. */
  cut(): number;
  /** Connections it serves itself. */
  readonly openConnections: number;
}

type ServingSocket = Socket & { _httpMessage?: http.ServerResponse | null };

/** Runs before the request handler: a request that reaches a closing server is its connection's last. */
function lastOnItsConnection(_req: http.IncomingMessage, res: http.ServerResponse): void {
  res.shouldKeepAlive = false;
}

/**
 * The graceful stop of the proxy's server (docs/deployment.md, "Graceful drain"): readiness turns
 * 503 at once while traffic is still served for the drain delay; then the listener closes, idle
 * keep-alive connections are closed, in-flight responses carry `Connection: close` (or, if their
 * head is already out, their connection is ended once they finish), event streams are ended, and
 * what is still running at the drain timeout is cut.
 */
export class ServerDrain {
  /** Open client connections: node has no public list, and the in-flight ones need `Connection: close`. */
  private readonly sockets = new Set<ServingSocket>();
  private started = false;

  constructor(
    private readonly server: http.Server,
    /** The data plane's proxied event streams; a server that proxies none has none. */
    private readonly streams?: OpenStreams,
    /** The data plane's relayed WebSocket connections. */
    private readonly websockets?: OpenWebSockets,
    private readonly fronts: readonly FrontListener[] = [],
  ) {
    server.on('connection', (socket: ServingSocket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** Client connections open now (the telemetry gauge reads it too). */
  get openConnections(): number {
    let count = this.sockets.size;
    for (const front of this.fronts) count += front.openConnections;
    return count;
  }

  /** True from the stop signal on: /health/serving and /health/ready answer 503. */
  get draining(): boolean {
    return this.started;
  }

  async drain(timings: DrainTimings): Promise<DrainOutcome> {
    this.started = true;
    if (timings.delayMs > 0) await sleep(timings.delayMs);
    const closed = Promise.all([new Promise<void>((resolve) => this.server.close(() => resolve())), ...this.fronts.map((front) => front.close())]);
    this.server.prependListener('request', lastOnItsConnection);
    // Close frames first: an upgraded socket must get its 1001 before anything could close it.
    const webSocketsClosed = this.websockets?.endAll() ?? 0;
    for (const socket of this.sockets) this.closeAfterCurrentResponse(socket);
    this.server.closeIdleConnections();
    const streamsEnded = this.streams?.endAll() ?? 0;
    for (const front of this.fronts) front.drain();

    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), timings.timeoutMs);
    });
    const cut = await Promise.race([closed.then(() => false as const), timedOut]);
    clearTimeout(timer);
    let connectionsCut = 0;
    if (cut) {
      connectionsCut = this.sockets.size;
      for (const socket of this.sockets) socket.destroy();
      for (const front of this.fronts) connectionsCut += front.cut();
      await closed;
    }
    return { streamsEnded, webSocketsClosed, connectionsCut };
  }

  private closeAfterCurrentResponse(socket: ServingSocket): void {
    const res = socket._httpMessage;
    // No response under way: an idle keep-alive connection, closed by closeIdleConnections().
    if (res === null || res === undefined || res.writableFinished) return;
    if (!res.headersSent) {
      res.shouldKeepAlive = false;
      return;
    }
    // The head went out with keep-alive: end the connection once this response is complete.
    res.once('finish', () => socket.end());
  }
}
