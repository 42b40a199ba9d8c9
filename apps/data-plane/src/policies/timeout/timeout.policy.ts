import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { GatewayError, type GatewayErrorCode } from '../../engine/error-catalogue';
import type { PolicyFactory } from '../../engine/policy';

function cut(request: ClientRequest, code: GatewayErrorCode): void {
  if (!request.destroyed) request.destroy(new GatewayError(code));
}

/**
 * `timeout.request` bounds one upstream attempt from the moment it is sent until its response
 * body has ended (504 while nothing was sent to the client, a cut connection after);
 * `timeout.connect` bounds establishing a new upstream connection. Innermost wrapper, so retries
 * get a fresh deadline per attempt.
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
      wrapUpstream: (next) => (exchange) => {
        const pending = next(exchange);
        const request = exchange.upstreamRequest as ClientRequest;
        const timer = setTimeout(cut, requestMs, request, 'UPSTREAM_TIMEOUT');
        if (connectMs !== undefined) {
          request.once('socket', (socket: Socket) => {
            if (!socket.connecting) return;
            const connectTimer = setTimeout(cut, connectMs, request, 'UPSTREAM_CONNECT_TIMEOUT');
            const clear = (): void => clearTimeout(connectTimer);
            socket.once('connect', clear);
            request.once('close', clear);
          });
        }
        return pending.then(
          (response: IncomingMessage) => {
            response.once('end', () => clearTimeout(timer));
            response.once('close', () => clearTimeout(timer));
            return response;
          },
          (error: unknown) => {
            clearTimeout(timer);
            throw error;
          },
        );
      },
    };
  },
};
