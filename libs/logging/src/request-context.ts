import { AsyncLocalStorage } from 'node:async_hooks';

const requests = new AsyncLocalStorage<{ correlationId: string }>();

/**
 * Runs `next` (and everything it starts) as part of the request with this correlation id: every
 * line logged meanwhile carries it, without each service passing it along.
 */
export function runWithCorrelationId<T>(correlationId: string, next: () => T): T {
  return requests.run({ correlationId }, next);
}

/** The correlation id of the request being handled, if any. */
export function currentCorrelationId(): string | undefined {
  return requests.getStore()?.correlationId;
}
