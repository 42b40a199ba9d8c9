import { randomFillSync } from 'node:crypto';

// Decision 17: a client's id is echoed when it is at most 128 safe characters.
const SAFE_CORRELATION_ID = /^[A-Za-z0-9._:@\/+=-]{1,128}$/;

export function isAcceptableCorrelationId(value: string | string[] | undefined): value is string {
  return typeof value === 'string' && SAFE_CORRELATION_ID.test(value);
}

const RANDOM_BYTES_PER_ID = 5;
/**
 * Random bytes drawn in bulk and hex-encoded in bulk: one getrandom() and one hex encoding per
 * 4 KiB instead of one of each per id (crossing into C++ costs more than the id itself).
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let hexPool = '';
let hexOffset = 0;
let stampMs = 0;
let stamp = '';

/**
 * `byteCount` (at most 4096) bytes from the pooled CSPRNG as lowercase hex: unguessable ids
 * (correlation ids, W3C trace and span ids).
 */
export function randomHex(byteCount: number): string {
  const chars = byteCount * 2;
  if (hexOffset + chars > hexPool.length) {
    randomFillSync(pool);
    hexPool = pool.toString('hex');
    hexOffset = 0;
  }
  const hex = hexPool.slice(hexOffset, hexOffset + chars);
  hexOffset += chars;
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
