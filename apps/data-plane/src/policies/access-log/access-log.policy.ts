import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Exchange } from '../../engine/exchange';
import type { PolicyFactory } from '../../engine/policy';

const LOGGED_WRITTEN = Symbol('accessLog.loggedWritten');
type LoggedSocket = Socket & { [LOGGED_WRITTEN]?: number };

/**
 * The access log (docs/tracing.md): one JSON line per finished request through the gateway's
 * logger, with its correlation id, route, status, duration, bytes sent, client address and W3C
 * trace ids. Written at level info when `proxy.accessLog.enabled`; otherwise at LOG_LEVEL=debug
 * only, as a debug line. At debug the line also carries the request headers (to see what a client
 * really sent): the shared redaction list censors authorization, cookie, x-api-key and the other
 * credential fields in every line. Neither on, the policy is not compiled and costs nothing.
 */
export const accessLogPolicy: PolicyFactory = {
  key: 'access-log',
  scope: 'gateway',
  order: 1010,
  create: (_route, env) => {
    const logger = env.services.logger;
    const withHeaders = logger.debugEnabled === true;
    const enabled = env.settings?.accessLog?.enabled === true;
    if (!enabled && !withHeaders) return null;
    const write = enabled ? (line: Record<string, unknown>) => logger.info(line, 'request') : (line: Record<string, unknown>) => logger.debug(line, 'request');
    return {
      onComplete(exchange) {
        if (exchange.local) return;
        const line = accessLogLine(exchange);
        if (withHeaders) line['req'] = { headers: exchange.req.headers };
        write(line);
      },
    };
  },
};

function accessLogLine(exchange: Exchange): Record<string, unknown> {
  return {
    correlationId: exchange.correlationId,
    traceId: exchange.trace?.traceId ?? null,
    spanId: exchange.trace?.spanId ?? null,
    routeId: exchange.route?.id ?? null,
    method: exchange.method,
    // Never the query string: it may carry credentials (?token=, ?api_key=).
    path: exchange.path,
    status: exchange.status,
    durationMs: Math.round((performance.now() - exchange.startedAt) * 10) / 10,
    bytesSent: bytesSentSinceLastLine(exchange.req.socket as LoggedSocket),
    clientIp: exchange.clientIp,
  };
}

/**
 * Bytes written to the connection since the previous response on it was logged: this response's
 * head and body (keep-alive connections carry one response after another). `bytesWritten` includes
 * what node still buffers, so nothing of this response is charged to the next one.
 */
function bytesSentSinceLastLine(socket: LoggedSocket): number {
  const written = socket.bytesWritten;
  const sent = written - (socket[LOGGED_WRITTEN] ?? 0);
  socket[LOGGED_WRITTEN] = written;
  return sent;
}
