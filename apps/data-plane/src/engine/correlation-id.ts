// Decision 17: a client's id is echoed when it is at most 128 safe characters.
const SAFE_CORRELATION_ID = /^[A-Za-z0-9._:@\/+=-]{1,128}$/;

export function isAcceptableCorrelationId(value: string | string[] | undefined): value is string {
  return typeof value === 'string' && SAFE_CORRELATION_ID.test(value);
}

/**
 * `req-<epoch ms>-<random>` (spec 9.2). Math.random is enough: the id names a request in logs, it
 * is not a secret, and the hot path cannot afford a syscall per request.
 */
export function generateCorrelationId(): string {
  return `req-${Date.now()}-${Math.random().toString(36).slice(2, 12).padEnd(10, '0')}`;
}
