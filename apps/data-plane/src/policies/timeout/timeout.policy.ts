import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { GatewayError, type GatewayErrorCode } from '../../engine/error-catalogue';
import type { Exchange } from '../../engine/exchange';
import type { PolicyFactory } from '../../engine/policy';

function cutAttempt(exchange: Exchange, code: GatewayErrorCode): void {
  const request = exchange.upstreamRequest;
  if (request !== undefined && !request.destroyed) request.destroy(new GatewayError(code));
}

function cutRequest(request: ClientRequest, code: GatewayErrorCode): void {
  if (!request.destroyed) request.destroy(new GatewayError(code));
}

function clearAttemptTimer(exchange: Exchange): void {
  if (exchange.attemptTimer !== undefined) {
    clearTimeout(exchange.attemptTimer);
    exchange.attemptTimer = undefined;
  }
}

/**
 * `timeout.request` bounds one upstream attempt from the moment it is sent until its response
 * body has ended (504 while nothing was sent to the client, a cut connection after);
 * `timeout.connect` bounds establishing a new upstream connection. Innermost wrapper, so retries
 * get a fresh deadline per attempt. The deadline is cleared when the exchange completes.
 */
export const timeoutPolicy: PolicyFactory = {
  key: 'timeout',
  scope: 'route',
  order: 900,
  create: (route) => {
    if (route === undefined) return null;
    const requestMs = route.timeout.request;
    const connectMs = route.timeout.connect;
    return {
      wrapUpstream: (next) => (exchange, done) => {
        clearAttemptTimer(exchange);
        exchange.attemptTimer = setTimeout(cutAttempt, requestMs, exchange, 'UPSTREAM_TIMEOUT');
        next(exchange, done);
        if (connectMs !== undefined) watchConnect(exchange.upstreamRequest as ClientRequest, connectMs);
      },
      onComplete: clearAttemptTimer,
    };
  },
};

function watchConnect(request: ClientRequest, connectMs: number): void {
  request.once('socket', (socket: Socket) => {
    if (!socket.connecting) return;
    const timer = setTimeout(cutRequest, connectMs, request, 'UPSTREAM_CONNECT_TIMEOUT');
    const clear = (): void => clearTimeout(timer);
    socket.once('connect', clear);
    request.once('close', clear);
  });
}
