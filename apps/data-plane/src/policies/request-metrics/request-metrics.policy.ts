import { performance } from 'node:perf_hooks';
import type { PolicyFactory } from '../../engine/policy';

/** Decision 18: unmatched requests are labelled `unmatched`, never with their raw URL. */
export const UNMATCHED_ROUTE_LABEL = 'unmatched';

/** Counts and times every proxied or unmatched request once it is over (complete phase). */
export const requestMetricsPolicy: PolicyFactory = {
  key: 'request-metrics',
  scope: 'gateway',
  order: 1000,
  create: (_route, env) => {
    const metrics = env.services.metrics;
    return {
      onComplete(exchange) {
        if (exchange.local) return;
        const route = exchange.route;
        metrics.observeRequest(
          route === undefined ? UNMATCHED_ROUTE_LABEL : route.id,
          route === undefined ? UNMATCHED_ROUTE_LABEL : route.route.path,
          exchange.method,
          exchange.status,
          performance.now() - exchange.startedAt,
        );
      },
    };
  },
};
