import http, { type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { CompiledRoute } from './compiled-route';
import { GatewayError } from './error-catalogue';
import type { Exchange } from './exchange';
import { isHopByHopName } from './hop-by-hop';
import type { OpenWebSockets } from './open-websockets';
import { sendError, writeUpstreamResponseHead } from './responses';
import { chooseTarget } from './upstreams/target-choice';
import { httpsOptionsOf } from './upstream-target';
import { WebSocketConnection, type ClientEnd } from './websocket-connection';
import { isHttp2Exchange, switchH2Stream } from './websocket-over-h2';

/** Bytes that came after the head of an upgrade request, set by gateway-server on node's 'upgrade'. */
const UPGRADE_HEAD = Symbol('gateway.upgradeHead');
type UpgradeRequest = IncomingMessage & { [UPGRADE_HEAD]?: Buffer };

/** Marks `req` as one node handed over as an upgrade (its socket is no longer parsed as HTTP). */
export function markUpgradeRequest(req: IncomingMessage, head: Buffer): void {
  (req as UpgradeRequest)[UPGRADE_HEAD] = head;
}

/** The shape of a WebSocket opening handshake (RFC 6455 4.1): a GET without a body asking to upgrade to `websocket`. */
export function asksForWebSocket(req: IncomingMessage): boolean {
  if (req.method !== 'GET' || req.headers['transfer-encoding'] !== undefined) return false;
  const length = req.headers['content-length'];
  if (length !== undefined && length !== '0') return false;
  const upgrade = req.headers.upgrade;
  return upgrade !== undefined && upgrade.split(',').some((token) => token.trim().toLowerCase() === 'websocket');
}

/** A WebSocket handshake node handed over as an upgrade (its socket is no longer parsed as HTTP). */
export function isWebSocketHandshake(req: IncomingMessage): boolean {
  return (req as UpgradeRequest)[UPGRADE_HEAD] !== undefined && asksForWebSocket(req);
}

/** What the dispatcher lends the upgrade path: completing the exchange, and its failure path. */
export interface UpgradeCallbacks {
  /** The handshake is over (101 relayed): the exchange is recorded now, not when the connection ends. */
  handshakeDone(exchange: Exchange): void;
  fail(exchange: Exchange, error: unknown): void;
}

/**
 * The upstream call of a WebSocket handshake, in place of the route's folded upstream call once its
 * request policies (auth, rate limit, ...) let it through: the per-route limit, the handshake
 * forwarded with `Connection: Upgrade`, the upstream's 101 relayed, then the two sockets joined.
 * An upstream that does not switch protocols gets its answer relayed as any response.
 */
export class WebSocketUpgrades {
  constructor(private readonly sockets: OpenWebSockets) {}

  forward(exchange: Exchange, route: CompiledRoute, callbacks: UpgradeCallbacks): void {
    const settings = route.route.websocket;
    if (settings === undefined) throw new Error('forward() needs a route with websocket');
    if (!this.sockets.reserve(route.id, settings.maxConnections)) {
      sendError(exchange, 'WEBSOCKET_LIMIT_REACHED');
      return;
    }
    // A named upstream's target is chosen per handshake, as for any request (docs/upstreams.md).
    const target = route.balanced === undefined ? route.upstream : chooseTarget(exchange, route);
    exchange.attempts += 1;
    const refusal = target.secure ? target.tls?.refusal : undefined;
    if (refusal !== undefined) {
      // Its CA file did not load: no handshake with other roots, the same 502 as the lean client's.
      this.sockets.release(route.id);
      callbacks.fail(exchange, new GatewayError('UPSTREAM_ERROR', undefined, { cause: new Error(refusal) }));
      return;
    }
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      return true;
    };
    const options: RequestOptions = {
      hostname: target.address ?? target.hostname,
      port: target.port,
      method: 'GET',
      path: exchange.upstreamPath,
      headers: { ...exchange.upstreamHeaders, connection: 'Upgrade', upgrade: exchange.req.headers.upgrade as string },
      // A connection of its own: an upgraded socket leaves the pool for good, so it never takes a warm one.
      agent: false,
    };
    // Handshakes keep node's client (rare, and the socket leaves any pool): the same TLS settings as the lean client's.
    const upstreamRequest: ClientRequest = target.secure ? https.request({ ...options, ...httpsOptionsOf(target) }) : http.request(options);
    exchange.upstream = {
      cancel: (code) => {
        if (!upstreamRequest.destroyed) upstreamRequest.destroy(new GatewayError(code));
      },
    };
    // The handshake gets the route's request timeout; the connection after it, the idle timeout.
    const timer = setTimeout(() => upstreamRequest.destroy(new GatewayError('UPSTREAM_TIMEOUT')), route.route.timeout.request);
    upstreamRequest.on('response', (response: IncomingMessage) => {
      if (!settle()) {
        response.resume();
        return;
      }
      this.sockets.release(route.id);
      if (exchange.clientAborted) {
        response.resume();
        return;
      }
      const status = response.statusCode ?? 502;
      // Over HTTP/2 a 2xx is what opens the tunnel (RFC 8441 5): an upstream that did not switch must not look as if it had.
      if (status >= 200 && status < 300 && isHttp2Exchange(exchange)) {
        response.resume();
        callbacks.fail(exchange, new GatewayError('UPSTREAM_ERROR'));
        return;
      }
      writeUpstreamResponseHead(exchange, status, response.rawHeaders);
      response.on('close', () => {
        if (!response.complete) exchange.res.destroy();
      });
      response.pipe(exchange.res);
    });
    upstreamRequest.on('upgrade', (response: IncomingMessage, upstreamSocket: Socket, upstreamHead: Buffer) => {
      if (!settle()) {
        upstreamSocket.destroy();
        return;
      }
      if (exchange.clientAborted) {
        upstreamSocket.destroy();
        this.sockets.release(route.id);
        return;
      }
      let client: ClientEnd | undefined;
      try {
        client = isHttp2Exchange(exchange) ? switchH2Stream(exchange, response) : switchSocket(exchange, response);
      } catch (error) {
        // A head node refuses to write (a header value it rejects) costs this handshake, not the process.
        this.sockets.release(route.id);
        upstreamSocket.destroy();
        callbacks.fail(exchange, error);
        return;
      }
      if (client === undefined) {
        this.sockets.release(route.id);
        upstreamSocket.destroy();
        callbacks.fail(exchange, new GatewayError('UPSTREAM_ERROR'));
        return;
      }
      callbacks.handshakeDone(exchange);
      const connection = new WebSocketConnection(route.id, client, upstreamSocket, settings.idleTimeout, (c) => this.sockets.remove(c));
      this.sockets.add(connection);
      connection.start((exchange.req as UpgradeRequest)[UPGRADE_HEAD] ?? Buffer.alloc(0), upstreamHead);
    });
    upstreamRequest.on('error', (error: Error) => {
      if (!settle()) return;
      this.sockets.release(route.id);
      callbacks.fail(exchange, error instanceof GatewayError ? error : new GatewayError('UPSTREAM_ERROR', undefined, { cause: error }));
    });
    // node closes a request without an error when nothing answered it (see forward.ts).
    upstreamRequest.on('close', () => {
      if (!settle()) return;
      this.sockets.release(route.id);
      callbacks.fail(exchange, new GatewayError('UPSTREAM_ERROR'));
    });
    upstreamRequest.end();
  }
}

/** Relays the upstream's 101 on the client's socket, which leaves the response object for the relay. */
function switchSocket(exchange: Exchange, response: IncomingMessage): ClientEnd {
  const client = exchange.req.socket;
  client.write(switchingProtocolsHead(exchange, response));
  exchange.status = 101;
  // The socket is the connection's now: the response object must neither write to it nor close with it.
  exchange.res.detachSocket(client);
  return client;
}

/** The upstream's 101 as the client gets it: its end-to-end fields, the upgrade itself, the gateway's own headers. */
function switchingProtocolsHead(exchange: Exchange, response: IncomingMessage): string {
  const lines = ['HTTP/1.1 101 Switching Protocols', 'Connection: Upgrade', `Upgrade: ${response.headers.upgrade ?? 'websocket'}`];
  const raw = response.rawHeaders;
  const extra = exchange.responseHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (isHopByHopName(name) || lower === 'x-correlation-id' || (extra !== undefined && extra[lower] !== undefined)) continue;
    lines.push(`${name}: ${raw[i + 1] as string}`);
  }
  lines.push(`X-Correlation-ID: ${exchange.correlationId}`);
  if (extra !== undefined) for (const name in extra) lines.push(`${name}: ${extra[name] as string}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}
