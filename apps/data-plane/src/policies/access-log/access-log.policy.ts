import { performance } from 'node:perf_hooks';
import type { PolicyFactory } from '../../engine/policy';

/**
 * At LOG_LEVEL=debug, one line per finished request with its correlation id, route, status,
 * duration and request headers (to see what a client really sent). The headers are safe to log:
 * the shared redaction list censors authorization, cookie, x-api-key and the other credential
 * fields in every line. At info or quieter the policy is not compiled into any pipeline.
 */
export const accessLogPolicy: PolicyFactory = {
  key: 'access-log',
  scope: 'gateway',
  order: 1010,
  create: (_route, env) => {
    const logger = env.services.logger;
    if (logger.debugEnabled !== true) return null;
    return {
      onComplete(exchange) {
        if (exchange.local) return;
        logger.debug(
          {
            correlationId: exchange.correlationId,
            routeId: exchange.route?.id ?? null,
            method: exchange.method,
            // Never the query string: it may carry credentials (?token=, ?api_key=).
            path: exchange.path,
            status: exchange.status,
            durationMs: Math.round((performance.now() - exchange.startedAt) * 10) / 10,
            req: { headers: exchange.req.headers },
          },
          'request',
        );
      },
    };
  },
};
