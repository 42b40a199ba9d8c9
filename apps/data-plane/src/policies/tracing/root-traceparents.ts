import { randomFillSync } from 'node:crypto';

/** `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`: W3C traceparent version 00. */
export const TRACEPARENT_LENGTH = 55;
export const TRACE_ID_AT = 3;
export const SPAN_ID_AT = 36;
/** The flags' second digit: '1' when sampled (the only flag level 1 defines). */
export const SAMPLED_DIGIT_AT = 54;

const TRACE_ID_BYTES = 16;
const SPAN_ID_BYTES = 8;
const BYTES_PER_RECORD = TRACE_ID_BYTES + SPAN_ID_BYTES;
/** Traceparents drawn and formatted per refill: one getrandom() and one string for 128 requests. */
const RECORDS = 128;
const DIGIT_CODES = Buffer.from('0123456789abcdef', 'latin1');
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
 * instructions a traced request (docs/tracing.md, "Cost"). Ids are never all zeros (§3.2.2.3).
 */
export class RootTraceparents {
  private readonly random = Buffer.alloc(RECORDS * BYTES_PER_RECORD);
  private readonly text = Buffer.alloc(RECORDS * TRACEPARENT_LENGTH);
  private pool = '';
  private next = RECORDS;

  constructor(readonly threshold: number) {
    for (let at = 0; at < this.text.length; at += TRACEPARENT_LENGTH) {
      this.text[at] = ZERO;
      this.text[at + 1] = ZERO;
      this.text[at + 2] = DASH;
      this.text[at + SPAN_ID_AT - 1] = DASH;
      this.text[at + SAMPLED_DIGIT_AT - 2] = DASH;
      this.text[at + SAMPLED_DIGIT_AT - 1] = ZERO;
    }
  }

  /** The next root traceparent. */
  take(): string {
    if (this.next === RECORDS) this.refill();
    const at = this.next * TRACEPARENT_LENGTH;
    this.next += 1;
    return this.pool.slice(at, at + TRACEPARENT_LENGTH);
  }

  private refill(): void {
    const { random, text } = this;
    randomFillSync(random);
    for (let r = 0; r < RECORDS; r += 1) {
      const from = r * BYTES_PER_RECORD;
      while (allZero(random, from, TRACE_ID_BYTES)) randomFillSync(random, from, TRACE_ID_BYTES);
      while (allZero(random, from + TRACE_ID_BYTES, SPAN_ID_BYTES)) randomFillSync(random, from + TRACE_ID_BYTES, SPAN_ID_BYTES);
      const at = r * TRACEPARENT_LENGTH;
      writeHex(random, from, TRACE_ID_BYTES, text, at + TRACE_ID_AT);
      writeHex(random, from + TRACE_ID_BYTES, SPAN_ID_BYTES, text, at + SPAN_ID_AT);
      // The trace id's last 4 bytes, big-endian: its last 8 hex digits as a number.
      const lowest = random.readUInt32BE(from + TRACE_ID_BYTES - 4);
      text[at + SAMPLED_DIGIT_AT] = lowest < this.threshold ? ONE : ZERO;
    }
    this.pool = text.toString('latin1');
    this.next = 0;
  }
}

function allZero(bytes: Buffer, from: number, count: number): boolean {
  for (let i = from; i < from + count; i += 1) if (bytes[i] !== 0) return false;
  return true;
}

function writeHex(bytes: Buffer, from: number, count: number, out: Buffer, at: number): void {
  for (let i = 0; i < count; i += 1) {
    const byte = bytes[from + i] as number;
    out[at + 2 * i] = DIGIT_CODES[byte >> 4] as number;
    out[at + 2 * i + 1] = DIGIT_CODES[byte & 15] as number;
  }
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
