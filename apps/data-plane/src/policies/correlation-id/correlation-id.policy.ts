import { generateCorrelationId, isAcceptableCorrelationId } from '../../engine/correlation-id';
import type { PolicyFactory } from '../../engine/policy';

/** Decision 17: echo a safe client X-Correlation-ID, otherwise mint `req-<ms>-<random>`. */
export const correlationIdPolicy: PolicyFactory = {
  key: 'correlation-id',
  scope: 'gateway',
  order: 10,
  create: () => ({
    onRequest(exchange) {
      const supplied = exchange.req.headers['x-correlation-id'];
      exchange.correlationId = isAcceptableCorrelationId(supplied) ? supplied : generateCorrelationId();
      return undefined;
    },
  }),
};
