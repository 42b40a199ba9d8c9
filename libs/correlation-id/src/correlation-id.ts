import { randomFillSync } from 'node:crypto';

// Decision 17: a client's id is echoed when it is at most 128 safe characters.
const SAFE_CORRELATION_ID = /^[A-Za-z0-9._:@\/+=-]{1,128}$/;

export function isAcceptableCorrelationId(value: string | string[] | undefined): value is string {
  return typeof value === 'string' && SAFE_CORRELATION_ID.test(value);
}

const RANDOM_BYTES_PER_ID = 5;
/** Random bytes drawn in bulk: one getrandom() per ~800 ids instead of one per request. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;
let stampMs = 0;
let stamp = '';

/**
 * `byteCount` (at most 64) bytes from a pooled CSPRNG buffer as lowercase hex: unguessable ids
 * (correlation ids, W3C trace and span ids) at one getrandom() per 4 KiB instead of one per id.
 */
export function randomHex(byteCount: number): string {
  if (poolOffset + byteCount > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + byteCount);
  poolOffset += byteCount;
  return hex;
}

/**
 * `req-<epoch ms>-<random>` (spec 9.2, decision 17): ten hex characters from the pooled CSPRNG
 * buffer, so ids are unique and not guessable; the `req-<ms>-` part is rebuilt only when the
 * millisecond changes.
 */
export function generateCorrelationId(): string {
  const now = Date.now();
  if (now !== stampMs) {
    stampMs = now;
    stamp = `req-${now}-`;
  }
  return stamp + randomHex(RANDOM_BYTES_PER_ID);
}
