import { randomFillSync } from 'node:crypto';
import { endianness } from 'node:os';

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
/**
 * The pool's hex digits as ASCII, written two at a time from a table: node's `toString('hex')` cost
 * about 14 instructions a byte under callgrind, a third of a trace hop's propagation (docs/tracing.md).
 */
const hexDigits = Buffer.alloc(POOL_BYTES * 2);
const hexPairs = new Uint16Array(hexDigits.buffer, hexDigits.byteOffset, POOL_BYTES);
/** Each byte's two lowercase hex digits as one 16-bit store, in the platform's byte order. */
const HEX_PAIR = new Uint16Array(256);
const DIGITS = '0123456789abcdef';
for (let byte = 0; byte < 256; byte += 1) {
  const first = DIGITS.charCodeAt(byte >> 4);
  const second = DIGITS.charCodeAt(byte & 15);
  HEX_PAIR[byte] = endianness() === 'LE' ? first | (second << 8) : (first << 8) | second;
}
let hexPool = '';
let hexOffset = 0;
let stampMs = 0;
let stamp = '';
/**
 * `req-<epoch seconds>` and the millisecond's three digits with the dash, so a new millisecond
 * costs a table read and one concatenation: epoch milliseconds are no small integer, and V8
 * formatted each in its runtime (~1.1k instructions, once a millisecond: on every request under
 * callgrind, about one in 40 at full speed; docs/data-plane.md, branch h-book100).
 */
let stampSecond = -1;
let secondText = '';
const MILLIS = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, '0')}-`);

/**
 * `byteCount` (at most 4096) bytes from the pooled CSPRNG as lowercase hex: unguessable ids
 * (correlation ids, W3C trace and span ids).
 */
export function randomHex(byteCount: number): string {
  const chars = byteCount * 2;
  if (hexOffset + chars > hexPool.length) {
    randomFillSync(pool);
    for (let i = 0; i < POOL_BYTES; i += 1) hexPairs[i] = HEX_PAIR[pool[i] as number] as number;
    hexPool = hexDigits.toString('latin1');
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
    const second = Math.floor(now / 1000);
    // Below a second (a clock a test set back) the table's digits would add leading zeros.
    if (now < 1000) stamp = `req-${now}-`;
    else {
      if (second !== stampSecond) {
        stampSecond = second;
        secondText = `req-${second}`;
      }
      stamp = secondText + (MILLIS[now - second * 1000] as string);
    }
  }
  return stamp + randomHex(RANDOM_BYTES_PER_ID);
}
