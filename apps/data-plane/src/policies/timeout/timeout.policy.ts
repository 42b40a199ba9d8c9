import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { GatewayError, type GatewayErrorCode } from '../../engine/error-catalogue';
import type { Exchange } from '../../engine/exchange';
import type { PolicyFactory } from '../../engine/policy';

function cutOnTimeout(exchange: Exchange): void {
  const request = exchange.upstreamRequest;
  if (request !== undefined && !request.destroyed) request.destroy(new GatewayError('UPSTREAM_TIMEOUT'));
}

function cutRequest(request: ClientRequest, code: GatewayErrorCode): void {
  if (!request.destroyed) request.destroy(new GatewayError(code));
}

/**
 * `timeout.request` bounds one upstream attempt from the moment it is sent until its response
 * body has ended (504 while nothing was sent to the client, a cut connection after);
 * `timeout.connect` bounds establishing a new upstream connection. Innermost wrapper, so retries
 * get a fresh deadline per attempt, bounded by what is left of `timeout.request` since the request
 * arrived. Deadlines live in the shared DeadlineWheel (no timer per
 * request) and fire within DEADLINE_TICK_MS of their time; the exchange's completion cancels it.
 */
export const timeoutPolicy: PolicyFactory = {
  key: 'timeout',
  scope: 'route',
  configures: 'timeout',
  order: 900,
  create: (route, env) => {
    if (route === undefined) return null;
    const requestMs = route.timeout.request;
    const connectMs = route.timeout.connect;
    const deadlines = env.services.deadlines;
    return {
      wrapUpstream: (next) => (exchange, done) => {
        // Scheduling again replaces the previous attempt's deadline. A retried attempt gets what is
        // left of the route's request timeout (decision 16: every attempt within it).
        const ms = exchange.attempts === 0 ? requestMs : Math.max(1, exchange.startedAt + requestMs - performance.now());
        deadlines.schedule(exchange, ms, cutOnTimeout);
        next(exchange, done);
        if (connectMs !== undefined) watchConnect(exchange.upstreamRequest as ClientRequest, connectMs);
      },
      onComplete: (exchange) => deadlines.cancel(exchange),
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
