import { USAGE_REPLY_KEYS, type CommandMessage, type CommandResult } from '@gateway/events';
import type { ResilienceControls, RunningDataPlane } from '../data-plane-options';

/** The in-process functions a command is applied through (the same ones a one-process caller uses). */
export interface RouteOperations {
  readonly resilience: ResilienceControls;
  readonly cache: RunningDataPlane['cache'];
}

/** Applies one validated command to this data plane and says what it did (null: the route has no such thing here). */
export function executeCommand(command: CommandMessage, operations: RouteOperations): CommandResult {
  const { routeId } = command;
  switch (command.kind) {
    case 'circuit-breaker': {
      const breakers = operations.resilience.breakers;
      const breaker = command.action === 'trip' ? breakers.trip(routeId) : breakers.reset(routeId);
      return { subject: 'circuit-breaker', breaker: breaker ?? null };
    }
    case 'cache-purge':
      return { subject: 'cache', purged: operations.cache.purge(routeId) };
    case 'status-query':
      switch (command.subject) {
        case 'circuit-breaker':
          return { subject: 'circuit-breaker', breaker: operations.resilience.breakers.status(routeId) ?? null };
        case 'health':
          return { subject: 'health', ...operations.resilience.health.status(routeId) };
        case 'rate-limit':
          return { subject: 'rate-limit', usage: operations.resilience.rateLimits.usage(routeId, USAGE_REPLY_KEYS) ?? null };
      }
  }
}
