import { USAGE_REPLY_KEYS, type CommandMessage, type CommandResult } from '@gateway/events';
import { newestWithin, type LogRingBuffer } from '@gateway/logging';
import type { ResilienceControls, RunningDataPlane } from '../data-plane-options';

/** The in-process functions a command is applied through (the same ones a one-process caller uses). */
export interface RouteOperations {
  readonly resilience: ResilienceControls;
  readonly cache: RunningDataPlane['cache'];
  /**
   * This data plane's recent log lines, when it keeps them itself (it runs apart from the control
   * plane); undefined in one process, where the control plane's buffer already holds them.
   */
  readonly logs?: Pick<LogRingBuffer, 'query'>;
}

/** A logs reply is one bus message: the newest lines that fit in this much JSON (about 1 MiB). */
const LOGS_REPLY_MAX_CHARS = 1_000_000;

/** Applies one validated command to this data plane and says what it did (null: the route has no such thing here). */
export function executeCommand(command: CommandMessage, operations: RouteOperations): CommandResult {
  if (command.kind === 'logs-query') {
    const found = operations.logs?.query({ limit: command.limit, level: command.level, since: command.since === undefined ? undefined : new Date(command.since) });
    return { subject: 'logs', lines: newestWithin(found?.lines ?? [], LOGS_REPLY_MAX_CHARS), total: found?.total ?? 0 };
  }
  const { routeId } = command;
  switch (command.kind) {
    case 'circuit-breaker': {
      const breakers = operations.resilience.breakers;
      const breaker = command.action === 'trip' ? breakers.trip(routeId, command.holdUntil === undefined ? undefined : Date.parse(command.holdUntil)) : breakers.reset(routeId);
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
