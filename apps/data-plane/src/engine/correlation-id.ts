// Decision 17: a client's id is echoed when it is at most 128 safe characters.
const SAFE_CORRELATION_ID = /^[A-Za-z0-9._:@\/+=-]{1,128}$/;

export function isAcceptableCorrelationId(value: string | string[] | undefined): value is string {
  return typeof value === 'string' && SAFE_CORRELATION_ID.test(value);
}

/** Per-process random prefix: ids from two gateway processes never collide. */
const PROCESS_PREFIX = Math.floor(Math.random() * 36 ** 6).toString(36).padStart(6, '0');
let sequence = 0;
let stampMs = 0;
let stamp = '';

/**
 * `req-<epoch ms>-<random>` (spec 9.2): the random part is a per-process random prefix plus a
 * counter, unique without a random draw per request; the `req-<ms>-<prefix>` part is rebuilt only
 * when the millisecond changes. The id names a request in logs; it is not a secret.
 */
export function generateCorrelationId(): string {
  const now = Date.now();
  if (now !== stampMs) {
    stampMs = now;
    stamp = `req-${now}-${PROCESS_PREFIX}`;
  }
  sequence = sequence === 0x7fffffff ? 1 : sequence + 1;
  return stamp + sequence.toString(36);
}
