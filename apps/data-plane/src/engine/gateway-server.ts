import http from 'node:http';
import type { Socket } from 'node:net';
import type { ProxySettings } from '@gateway/route-model';
import { GATEWAY_ERRORS, type GatewayErrorCode } from './error-catalogue';
import { writeRawError } from './responses';
import { reparseWithoutUpgrade } from './upgrade-reparse';
import { asksForWebSocket, markUpgradeRequest } from './websocket-upgrade';

/** How often node checks connections against headersTimeout/requestTimeout (default 30 s is too coarse). */
const CONNECTIONS_CHECK_INTERVAL_MS = 1000;

/**
 * The listening socket with the limits node:http does not set for a proxy by default: header size
 * (431), header and whole-request deadlines (a stalled body is cut with 408 instead of held for
 * the default 5 minutes), keep-alive, CONNECT refused, and errors before a request exists answered
 * with the spec's JSON body.
 */
export function createGatewayServer(
  settings: ProxySettings,
  handler: http.RequestListener,
  /** Answers a request whose Expect header node cannot meet (instead of node's bare 417). */
  rejectExpectation: http.RequestListener,
): http.Server {
  const headersTimeout = Math.min(settings.headersTimeout, settings.requestTimeout);
  const server = http.createServer(
    {
      maxHeaderSize: settings.maxHeaderSize,
      requestTimeout: settings.requestTimeout,
      headersTimeout,
      keepAliveTimeout: settings.keepAliveTimeout,
      connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
      // Checked in readRequestTarget so the 400 carries the spec's body and headers.
      requireHostHeader: false,
      joinDuplicateHeaders: false,
    },
    handler,
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // `_httpMessage` is null, not undefined, once a keep-alive socket's previous response finished:
    // an oversized second head on one connection used to crash the process here (issue 11).
    const response = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage ?? undefined;
    if (response?.headersSent || error.code === 'ECONNRESET' || error.code === 'EPIPE') {
      socket.destroy();
      return;
    }
    const code = clientErrorCode(error.code);
    // A request already handed to the dispatcher (stalled body) is recorded with this status.
    if (response !== undefined) response.statusCode = GATEWAY_ERRORS[code].status;
    writeRawError(socket, code);
  });
  server.on('checkExpectation', rejectExpectation);
  // CONNECT asks us to be a forward proxy; this gateway is a reverse proxy only.
  // Node detaches its own error handling from a CONNECT socket before emitting 'connect': without a
  // listener here, a client that resets the connection while we answer would end the process.
  server.on('connect', (_req: http.IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    writeRawError(socket, 'METHOD_NOT_ALLOWED');
  });
  // With a listener here node hands over every request that asks for an upgrade instead of serving
  // it. A WebSocket handshake goes through the same handler on a response object of its own: the
  // dispatcher relays it on routes that accept WebSockets and serves it as a plain request, the
  // connection's last, on the others. Any other upgrade request is parsed again without the upgrade.
  server.on('upgrade', (req: http.IncomingMessage, socket: Socket, head: Buffer) => {
    // node took its own listeners off the socket: an error now must not end the process.
    const onError = (): void => {
      socket.destroy();
    };
    socket.on('error', onError);
    // Pipelined behind responses still being written: its turn comes when the socket is free.
    whenSocketFree(socket as ServingSocket, () => {
      if (!asksForWebSocket(req)) {
        socket.off('error', onError);
        reparseWithoutUpgrade(server, req, socket, head);
        return;
      }
      markUpgradeRequest(req, head);
      const res = new http.ServerResponse(req);
      res.shouldKeepAlive = false;
      res.assignSocket(socket);
      res.once('finish', () => socket.end());
      handler(req, res);
    });
  });
  return server;
}

type ServingSocket = Socket & { _httpMessage?: http.ServerResponse | null };

/** Runs `then` once no response of an earlier (pipelined) request holds the socket; never if the socket dies first. */
function whenSocketFree(socket: ServingSocket, then: () => void): void {
  const current = socket._httpMessage;
  if (current === null || current === undefined) {
    then();
    return;
  }
  current.once('close', () => {
    if (!socket.destroyed) whenSocketFree(socket, then);
  });
}

function clientErrorCode(code: string | undefined): GatewayErrorCode {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'HEADERS_TOO_LARGE';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADERS_TIMEOUT':
      return 'REQUEST_TIMEOUT';
    default:
      return 'BAD_REQUEST';
  }
}
