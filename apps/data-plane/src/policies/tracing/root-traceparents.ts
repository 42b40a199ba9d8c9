import { randomFillSync } from 'node:crypto';

/** `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`: W3C traceparent version 00. */
export const TRACEPARENT_LENGTH = 55;
export const TRACE_ID_AT = 3;
export const SPAN_ID_AT = 36;
/** The flags' second digit: '1' when sampled (the only flag level 1 defines). */
export const SAMPLED_DIGIT_AT = 54;

/**
 * A record is the hex of 28 drawn bytes, 56 characters of which the traceparent is the first 55,
 * with the fixed characters written over it: `00-` (chars 0-2), `-` (35), `-0` (52-53) and the
 * flag (54). The trace id (chars 3-34) is then the low half of byte 1, bytes 2-16 and the high half
 * of byte 17; the span id (36-51) bytes 18-25: 128 and 64 drawn bits, as the ids need.
 */
const RECORD_BYTES = 28;
const RECORD_CHARS = 2 * RECORD_BYTES;
/** Traceparents drawn and formatted per refill: one getrandom() and one string for 128 requests. */
const RECORDS = 128;
/** Code units of the traceparent's fixed characters, shared with trace-context.ts. */
export const ZERO = 0x30;
export const ONE = 0x31;
export const DASH = 0x2d;

/**
 * The share of trace ids a ratio samples, as OpenTelemetry's TraceIdRatioBased decides it: a trace
 * id is sampled when its last 8 hex digits (as an unsigned number) are below this.
 */
export function samplingThreshold(ratio: number): number {
  return Math.floor(Math.min(Math.max(ratio, 0), 1) * 0x1_0000_0000);
}

/**
 * Traceparents for the traces the gateway starts, drawn from the CSPRNG and formatted in bulk
 * (issue 18): each is one 55-character slice of a flat string, trace id, span id and the sampled
 * flag already written. The flag is decided when the record is made, since it depends only on the
 * trace id and the ratio (the same answer as `rootSampler`). Before, a request drew two ids as
 * slices, concatenated them into a 5-piece string and the upstream head flattened it: about 1.2k
 * instructions a traced request (docs/tracing.md, "Cost"). The hex digits are node's (one
 * `toString('hex')` of the whole draw): a JavaScript loop over the bytes cost ~1k instructions a
 * record under callgrind, node's encoder ~0.4k. Ids are never all zeros (§3.2.2.3).
 */
export class RootTraceparents {
  private readonly random = Buffer.alloc(RECORDS * RECORD_BYTES);
  /** Each record's bytes 4-7, 8-11, 12-15 (inside the trace id) and 20-23 (inside the span id) as words: the usual zero checks. */
  private readonly words = new Uint32Array(this.random.buffer, this.random.byteOffset, this.random.length >> 2);
  private readonly text = Buffer.alloc(RECORDS * RECORD_CHARS);
  private pool = '';
  private next = RECORDS;

  /** `fill` draws the bytes (the CSPRNG; a spec passes known bytes to read the formatting back). */
  constructor(
    readonly threshold: number,
    private readonly fill: (bytes: Buffer, offset?: number, size?: number) => void = randomFillSync,
  ) {}

  /** The next root traceparent. */
  take(): string {
    if (this.next === RECORDS) this.refill();
    const at = this.next * RECORD_CHARS;
    this.next += 1;
    return this.pool.slice(at, at + TRACEPARENT_LENGTH);
  }

  private refill(): void {
    const { random, words, text } = this;
    this.fill(random);
    for (let from = 0; from < random.length; from += RECORD_BYTES) {
      const word = from >> 2;
      // A word inside an id that is not 0 settles it; otherwise (2^-32) the id's every digit is read.
      while (((words[word + 1] as number) | (words[word + 2] as number) | (words[word + 3] as number)) === 0 && traceIdIsZero(random, from)) this.fill(random, from, RECORD_BYTES);
      while ((words[word + 5] as number) === 0 && spanIdIsZero(random, from)) this.fill(random, from, RECORD_BYTES);
    }
    text.write(random.toString('hex'), 0, 'latin1');
    for (let r = 0; r < RECORDS; r += 1) {
      const at = r * RECORD_CHARS;
      const from = r * RECORD_BYTES;
      text[at] = ZERO;
      text[at + 1] = ZERO;
      text[at + 2] = DASH;
      text[at + SPAN_ID_AT - 1] = DASH;
      text[at + SAMPLED_DIGIT_AT - 2] = DASH;
      text[at + SAMPLED_DIGIT_AT - 1] = ZERO;
      text[at + SAMPLED_DIGIT_AT] = lowest32Bits(random, from) < this.threshold ? ONE : ZERO;
    }
    this.pool = text.toString('latin1');
    this.next = 0;
  }
}

/** The trace id's last 8 hex digits (chars 27-34) as a number: the low half of byte 13, bytes 14-16, the high half of byte 17. */
function lowest32Bits(random: Buffer, from: number): number {
  const b13 = random[from + 13] as number;
  const b14 = random[from + 14] as number;
  const b15 = random[from + 15] as number;
  const b16 = random[from + 16] as number;
  const b17 = random[from + 17] as number;
  return (((b13 & 0x0f) << 28) | (b14 << 20) | (b15 << 12) | (b16 << 4) | (b17 >> 4)) >>> 0;
}

function traceIdIsZero(random: Buffer, from: number): boolean {
  if (((random[from + 1] as number) & 0x0f) !== 0 || (random[from + 17] as number) >> 4 !== 0) return false;
  for (let i = from + 2; i <= from + 16; i += 1) if (random[i] !== 0) return false;
  return true;
}

function spanIdIsZero(random: Buffer, from: number): boolean {
  for (let i = from + 18; i <= from + 25; i += 1) if (random[i] !== 0) return false;
  return true;
}

/**
 * One pool per sampling ratio, shared by every route compiled with it (a pool is ~17 KB; the ratio
 * is the process's). A reload that changes the ratio starts another; at most a few are kept (a
 * route holds its own reference, so dropping one from here never breaks a route).
 */
const POOLS = new Map<number, RootTraceparents>();
const POOLS_MAX = 4;

export function rootTraceparentsFor(ratio: number): RootTraceparents {
  const threshold = samplingThreshold(ratio);
  let pool = POOLS.get(threshold);
  if (pool === undefined) {
    if (POOLS.size >= POOLS_MAX) POOLS.clear();
    pool = new RootTraceparents(threshold);
    POOLS.set(threshold, pool);
  }
  return pool;
}
