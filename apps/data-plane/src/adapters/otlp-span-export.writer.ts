/** Bytes of the minimal varint of an unsigned 32-bit length. */
function varintSize(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  return 5;
}

/**
 * Each ASCII code's value as a hex digit the way the official `hexToBinary` reads it: 0-9, a-f,
 * anything else as A-F (code - 55), so odd input encodes alike. A table, not branches: ids are
 * the most characters a span decodes (issue 18).
 */
const HEX_VALUE = new Int16Array(128);
for (let code = 0; code < 128; code += 1) HEX_VALUE[code] = code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : code - 55;

function hexDigit(code: number): number {
  return code < 128 ? (HEX_VALUE[code] as number) : code - 55;
}

/**
 * A protobuf writer over one buffer kept between batches (grown when a batch needs more), with the
 * encodings of the official `ProtobufWriter` of `@opentelemetry/otlp-transformer` (same varints,
 * fixed64 times, doubles, hex ids, UTF-8 with lone surrogates replaced) but without its costs on
 * the gateway's path: an id's hex is decoded straight into the buffer (no `Uint8Array` per id), a
 * string is walked once (ASCII copied as it is checked; other text written by `Buffer#write`), and
 * there is no size-estimating pass: a nested message reserves the length bytes it most likely
 * needs and moves its bytes when its length turns out to need fewer or more.
 */
export class ProtobufSpanWriter {
  private buffer: Buffer;
  pos = 0;

  constructor(initialSize = 64 * 1024) {
    this.buffer = Buffer.allocUnsafe(initialSize);
  }

  /** Starts writing a new message from the beginning of the buffer. */
  reset(): void {
    this.pos = 0;
  }

  /** A copy of what was written: the exporter keeps it for its retries while the next batch reuses the buffer. */
  copy(): Uint8Array {
    const out = Buffer.allocUnsafe(this.pos);
    this.buffer.copy(out, 0, 0, this.pos);
    return out;
  }

  /** A copy of what was written from `from` on (a field kept to be copied into later batches). */
  slice(from: number): Uint8Array {
    const out = Buffer.allocUnsafe(this.pos - from);
    this.buffer.copy(out, 0, from, this.pos);
    return out;
  }

  /** Makes room for `bytes` more. */
  ensure(bytes: number): void {
    const needed = this.pos + bytes;
    if (needed <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < needed) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.pos);
    this.buffer = grown;
  }

  /** Bytes already encoded (the resource and scope, encoded once): the caller has ensured room. */
  raw(bytes: Uint8Array): void {
    this.buffer.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** One byte (a tag below field 16, a small varint): the caller has ensured room. */
  byte(value: number): void {
    this.buffer[this.pos++] = value;
  }

  tag(field: number, wireType: number): void {
    // Fields 1-15 (every field of a span): one byte, no varint loop.
    if (field < 16) {
      this.ensure(1);
      this.buffer[this.pos++] = (field << 3) | wireType;
    } else this.varint((field << 3) | wireType);
  }

  /** The official writer's varint: unsigned 32-bit values as they are, others as 64-bit two's complement. */
  varint(value: number): void {
    this.ensure(10);
    const buffer = this.buffer;
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0;
      while (v > 0x7f) {
        buffer[this.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      buffer[this.pos++] = v;
      return;
    }
    const abs = Math.abs(value);
    let low = abs >>> 0;
    let high = (abs / 0x100000000) >>> 0;
    if (value < 0) {
      low = ~low >>> 0;
      high = ~high >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    while (high > 0 || low > 0x7f) {
      buffer[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    buffer[this.pos++] = low & 0x7f;
  }

  fixed32(value: number): void {
    this.ensure(4);
    this.buffer.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
  }

  /** Epoch milliseconds as fixed64 nanoseconds, through the SDK's `millisToHrTime` and the official writer's HrTime split. */
  epochMillisAsNanos(epochMillis: number): void {
    const seconds = Math.trunc(epochMillis / 1000);
    const nanos = Math.round((epochMillis % 1000) * 1_000_000);
    const nanosFromLow16 = (seconds & 0xffff) * 1_000_000_000;
    const nanosFromHigh = ((seconds / 0x10000) >>> 0) * 1_000_000_000;
    const low32WithCarry = (nanosFromLow16 >>> 0) + (((nanosFromHigh & 0xffff) * 0x10000) >>> 0) + nanos;
    const carry = Math.floor(low32WithCarry / 0x100000000);
    const high = (Math.floor(nanosFromLow16 / 0x100000000) + ((nanosFromHigh / 0x10000) >>> 0) + carry) >>> 0;
    this.ensure(8);
    this.buffer.writeUInt32LE(low32WithCarry >>> 0, this.pos);
    this.buffer.writeUInt32LE(high, this.pos + 4);
    this.pos += 8;
  }

  double(value: number): void {
    this.ensure(8);
    this.buffer.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /** A hex id as bytes (length, then the decoded pairs), decoded into the buffer. */
  hexBytes(hex: string): void {
    const length = hex.length >> 1;
    this.varint(length);
    this.ensure(length);
    const buffer = this.buffer;
    let at = this.pos;
    for (let i = 0; i < 2 * length; i += 2) buffer[at++] = (hexDigit(hex.charCodeAt(i)) << 4) | hexDigit(hex.charCodeAt(i + 1));
    this.pos = at;
  }

  /** A string as length-delimited UTF-8, walked once when it is ASCII (the gateway's usual case). */
  string(text: string): void {
    const length = text.length;
    // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, 4).
    this.ensure(5 + 3 * length);
    const start = this.pos;
    const reserved = varintSize(length);
    const buffer = this.buffer;
    let at = start + reserved;
    let i = 0;
    for (; i < length; i += 1) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) break;
      buffer[at++] = code;
    }
    const bytes = i === length ? length : buffer.write(text, start + reserved, 'utf8');
    this.pos = start + reserved + bytes;
    this.finishLengthDelimited(start, reserved);
  }

  /** Reserves the length bytes of a nested message (`reserved`, the size its length most likely needs) and returns where. */
  startLengthDelimited(reserved: number): number {
    this.ensure(reserved);
    const start = this.pos;
    this.pos += reserved;
    return start;
  }

  /** Writes the length of the message started at `start`, moving its bytes when the varint needs another size than reserved. */
  finishLengthDelimited(start: number, reserved: number): void {
    const length = this.pos - start - reserved;
    const size = varintSize(length);
    if (size !== reserved) {
      this.ensure(size - reserved);
      this.buffer.copyWithin(start + size, start + reserved, this.pos);
      this.pos += size - reserved;
    }
    let at = start;
    let v = length;
    while (v > 0x7f) {
      this.buffer[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buffer[at] = v;
  }
}
