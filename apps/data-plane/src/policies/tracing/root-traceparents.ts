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
/**
 * Each byte as its two lowercase hex digits, the first in the high byte: one big-endian 16-bit
 * store writes both. A byte at a time with two table loads and two stores cost ~1.3k instructions
 * a traceparent under callgrind, on every traced request (issue 18).
 */
const HEX_PAIRS = new Uint16Array(256);
for (let byte = 0; byte < 256; byte += 1) HEX_PAIRS[byte] = ('0123456789abcdef'.charCodeAt(byte >> 4) << 8) | '0123456789abcdef'.charCodeAt(byte & 15);
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
  /** The drawn bytes, and the same memory as 32-bit words: an id is all zeros when its words OR to 0. */
  private readonly random: Buffer;
  private readonly words: Uint32Array;
  private readonly text = Buffer.alloc(RECORDS * TRACEPARENT_LENGTH);
  /** The text as a DataView: its ids start at odd offsets, where a Uint16Array cannot store. */
  private readonly textView = new DataView(this.text.buffer, this.text.byteOffset, this.text.length);
  private pool = '';
  private next = RECORDS;

  /** `fill` draws the bytes (the CSPRNG; a spec passes known bytes to read the formatting back). */
  constructor(
    readonly threshold: number,
    private readonly fill: (bytes: Buffer, offset?: number, size?: number) => void = randomFillSync,
  ) {
    const memory = new ArrayBuffer(RECORDS * BYTES_PER_RECORD);
    this.random = Buffer.from(memory);
    this.words = new Uint32Array(memory);
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
    const { random, words, textView } = this;
    this.fill(random);
    for (let r = 0; r < RECORDS; r += 1) {
      const from = r * BYTES_PER_RECORD;
      const word = from >> 2;
      while (((words[word] as number) | (words[word + 1] as number) | (words[word + 2] as number) | (words[word + 3] as number)) === 0) this.fill(random, from, TRACE_ID_BYTES);
      while (((words[word + 4] as number) | (words[word + 5] as number)) === 0) this.fill(random, from + TRACE_ID_BYTES, SPAN_ID_BYTES);
      const at = r * TRACEPARENT_LENGTH;
      for (let i = 0; i < TRACE_ID_BYTES; i += 1) textView.setUint16(at + TRACE_ID_AT + 2 * i, HEX_PAIRS[random[from + i] as number] as number);
      for (let i = 0; i < SPAN_ID_BYTES; i += 1) textView.setUint16(at + SPAN_ID_AT + 2 * i, HEX_PAIRS[random[from + TRACE_ID_BYTES + i] as number] as number);
      // The trace id's last 4 bytes, big-endian: its last 8 hex digits as a number.
      const last = from + TRACE_ID_BYTES - 4;
      const lowest = (((random[last] as number) << 24) | ((random[last + 1] as number) << 16) | ((random[last + 2] as number) << 8) | (random[last + 3] as number)) >>> 0;
      textView.setUint8(at + SAMPLED_DIGIT_AT, lowest < this.threshold ? ONE : ZERO);
    }
    this.pool = this.text.toString('latin1');
    this.next = 0;
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
