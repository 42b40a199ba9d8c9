/**
 * A decoder of OTLP trace export requests in protobuf (opentelemetry-proto,
 * `collector/trace/v1/trace_service.proto`), the body @opentelemetry/exporter-trace-otlp-proto
 * posts, into the shape of their OTLP JSON form (hex ids, times as decimal strings). Only the
 * fields the fake collector reads; unknown fields are skipped by their wire type.
 */

export type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
export type KeyValue = { key: string; value: AnyValue };
export interface DecodedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  traceState: string;
  name: string;
  kind: number;
  status: { code: number };
  attributes: KeyValue[];
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}
export interface DecodedExport {
  resourceSpans: Array<{ resource: { attributes: KeyValue[] }; scopeSpans: Array<{ spans: DecodedSpan[] }> }>;
}

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** One message's fields in order: the field number, its wire type, and a reader positioned on its value. */
class Reader {
  private pos: number;
  constructor(
    private readonly buf: Buffer,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  *fields(): Generator<{ field: number; wireType: number }> {
    while (this.pos < this.end) {
      const tag = this.varint();
      yield { field: Number(tag >> 3n), wireType: Number(tag & 7n) };
    }
  }

  varint(): bigint {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const byte = this.buf[this.pos++] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  }

  fixed64(): bigint {
    const value = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return value;
  }

  double(): number {
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  /** The next length-delimited value as a reader of its own bytes. */
  message(): Reader {
    const length = Number(this.varint());
    if (this.pos + length > this.end) throw new Error('truncated field');
    const inner = new Reader(this.buf, this.pos, this.pos + length);
    this.pos += length;
    return inner;
  }

  bytes(): Buffer {
    const inner = this.message();
    return inner.buf.subarray(inner.pos, inner.end);
  }

  string(): string {
    return this.bytes().toString('utf8');
  }

  skip(wireType: number): void {
    if (wireType === VARINT) this.varint();
    else if (wireType === FIXED64) this.pos += 8;
    else if (wireType === LENGTH_DELIMITED) this.message();
    else if (wireType === FIXED32) this.pos += 4;
    else throw new Error(`unsupported wire type ${wireType}`);
  }
}

function anyValue(reader: Reader): AnyValue {
  for (const { field, wireType } of reader.fields()) {
    if (field === 1 && wireType === LENGTH_DELIMITED) return { stringValue: reader.string() };
    if (field === 2 && wireType === VARINT) return { boolValue: reader.varint() !== 0n };
    if (field === 3 && wireType === VARINT) return { intValue: BigInt.asIntN(64, reader.varint()).toString() };
    if (field === 4 && wireType === FIXED64) return { doubleValue: reader.double() };
    reader.skip(wireType);
  }
  return {};
}

function keyValue(reader: Reader): KeyValue {
  let key = '';
  let value: AnyValue = {};
  for (const { field, wireType } of reader.fields()) {
    if (field === 1 && wireType === LENGTH_DELIMITED) key = reader.string();
    else if (field === 2 && wireType === LENGTH_DELIMITED) value = anyValue(reader.message());
    else reader.skip(wireType);
  }
  return { key, value };
}

function statusCode(reader: Reader): number {
  let code = 0;
  for (const { field, wireType } of reader.fields()) {
    if (field === 3 && wireType === VARINT) code = Number(reader.varint());
    else reader.skip(wireType);
  }
  return code;
}

function span(reader: Reader): DecodedSpan {
  const decoded: DecodedSpan = { traceId: '', spanId: '', parentSpanId: '', traceState: '', name: '', kind: 0, status: { code: 0 }, attributes: [], startTimeUnixNano: '0', endTimeUnixNano: '0' };
  for (const { field, wireType } of reader.fields()) {
    if (field === 1 && wireType === LENGTH_DELIMITED) decoded.traceId = reader.bytes().toString('hex');
    else if (field === 2 && wireType === LENGTH_DELIMITED) decoded.spanId = reader.bytes().toString('hex');
    else if (field === 3 && wireType === LENGTH_DELIMITED) decoded.traceState = reader.string();
    else if (field === 4 && wireType === LENGTH_DELIMITED) decoded.parentSpanId = reader.bytes().toString('hex');
    else if (field === 5 && wireType === LENGTH_DELIMITED) decoded.name = reader.string();
    else if (field === 6 && wireType === VARINT) decoded.kind = Number(reader.varint());
    else if (field === 7 && wireType === FIXED64) decoded.startTimeUnixNano = reader.fixed64().toString();
    else if (field === 8 && wireType === FIXED64) decoded.endTimeUnixNano = reader.fixed64().toString();
    else if (field === 9 && wireType === LENGTH_DELIMITED) decoded.attributes.push(keyValue(reader.message()));
    else if (field === 15 && wireType === LENGTH_DELIMITED) decoded.status = { code: statusCode(reader.message()) };
    else reader.skip(wireType);
  }
  return decoded;
}

/** Every KeyValue of field `attributesField` in a message (Resource: field 1). */
function attributesOf(reader: Reader, attributesField: number): KeyValue[] {
  const attributes: KeyValue[] = [];
  for (const { field, wireType } of reader.fields()) {
    if (field === attributesField && wireType === LENGTH_DELIMITED) attributes.push(keyValue(reader.message()));
    else reader.skip(wireType);
  }
  return attributes;
}

function scopeSpans(reader: Reader): { spans: DecodedSpan[] } {
  const spans: DecodedSpan[] = [];
  for (const { field, wireType } of reader.fields()) {
    if (field === 2 && wireType === LENGTH_DELIMITED) spans.push(span(reader.message()));
    else reader.skip(wireType);
  }
  return { spans };
}

function resourceSpans(reader: Reader): DecodedExport['resourceSpans'][number] {
  const decoded: DecodedExport['resourceSpans'][number] = { resource: { attributes: [] }, scopeSpans: [] };
  for (const { field, wireType } of reader.fields()) {
    if (field === 1 && wireType === LENGTH_DELIMITED) decoded.resource = { attributes: attributesOf(reader.message(), 1) };
    else if (field === 2 && wireType === LENGTH_DELIMITED) decoded.scopeSpans.push(scopeSpans(reader.message()));
    else reader.skip(wireType);
  }
  return decoded;
}

/** An ExportTraceServiceRequest; throws on a truncated or malformed body. */
export function decodeTraceExport(body: Buffer): DecodedExport {
  const reader = new Reader(body);
  const decoded: DecodedExport = { resourceSpans: [] };
  for (const { field, wireType } of reader.fields()) {
    if (field === 1 && wireType === LENGTH_DELIMITED) decoded.resourceSpans.push(resourceSpans(reader.message()));
    else reader.skip(wireType);
  }
  return decoded;
}
