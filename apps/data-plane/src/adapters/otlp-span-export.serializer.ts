import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer, type IExportTraceServiceResponse, type ISerializer } from '@opentelemetry/otlp-transformer';
import type { FinishedSpan } from '../policies/tracing/span-export';
import { ProtobufSpanWriter } from './otlp-span-export.writer';

/** Wire types. */
const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** `Span.kind`: SpanKind.SERVER (1) plus one, as the OTLP enum counts UNSPECIFIED first. */
const KIND_SERVER = 2;
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;
/** `Span.flags`: sampled, plus "has is_remote" and, with a caller's parent, "is remote". */
const FLAGS_ROOT = 0x101;
const FLAGS_REMOTE_PARENT = 0x301;

/** The length bytes a nested message most likely needs: guesses only, a wrong one costs a move of its bytes. */
const RESERVE_SPAN = 2;
const RESERVE_SMALL = 1;
const RESERVE_BATCH = 3;

type AttributeValue = FinishedSpan['attributes'][string] | boolean;

/**
 * Attribute keys already seen, each with its `KeyValue.key` bytes (tag, length, UTF-8): a span's
 * keys are the same dozen names every time, and copying their bytes costs a fraction of encoding
 * them again (issue 18). Cleared when full, so keys that vary cannot grow it without bound.
 */
const KEY_FIELDS_MAX = 256;

/**
 * A field's last value and, once the same value came twice in a row, its whole encoded field
 * (tag, length, message): copied instead of encoded while the value repeats. Most of a span's
 * values repeat from span to span (the route, its id and upstream, the method, scheme, status,
 * often the client), and encoding a string field costs several times its copy; a value that
 * changes every span (the correlation id, a path) costs one comparison and is never copied out.
 * Equal values always encode to equal bytes (`-0 === 0`: both are written as the varint 0).
 */
class LastField {
  value: AttributeValue | undefined = undefined;
  bytes: Uint8Array | undefined = undefined;

  /** An attribute's `KeyValue.key` bytes (tag, length, UTF-8); undefined for the span's name. */
  constructor(readonly keyField: Uint8Array | undefined) {}
}

function encodeKeyField(key: string): Uint8Array {
  const utf8 = Buffer.from(key, 'utf8');
  const length: number[] = [];
  let v = utf8.length;
  while (v > 0x7f) {
    length.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  length.push(v);
  return Buffer.concat([Buffer.from([(1 << 3) | LENGTH_DELIMITED, ...length]), utf8]);
}

/**
 * The gateway's spans as an OTLP `ExportTraceServiceRequest` in protobuf, straight from the
 * policy's `FinishedSpan`: byte for byte what the official `ProtobufTraceSerializer` writes for the
 * SDK's `ReadableSpan` of the same request (`ExportedSpan`; the adapter spec checks it on random
 * spans), at a fraction of its instructions (docs/tracing.md, "Cost"). The resource and the scope
 * are encoded once, here; every batch is one ResourceSpans with one ScopeSpans. The response is
 * read by the official deserializer (partial success included).
 */
export class OtlpSpanSerializer implements ISerializer<readonly FinishedSpan[], IExportTraceServiceResponse> {
  private readonly writer = new ProtobufSpanWriter();
  /** `ResourceSpans.resource` and `ScopeSpans.scope`, tag and length included. */
  private readonly resourceField: Uint8Array;
  private readonly scopeField: Uint8Array;
  /** The last tracestate and its serialization by the SDK's TraceState (a trace's requests share one). */
  private lastTraceState = '';
  private lastTraceStateSerialized = '';
  private readonly spanAttributes = new Map<string, LastField>();
  private readonly spanName = new LastField(undefined);

  constructor(resourceAttributes: Readonly<Record<string, string>>, scopeName: string) {
    const w = this.writer;
    w.tag(1, LENGTH_DELIMITED);
    const resource = w.startLengthDelimited(RESERVE_SMALL);
    this.attributes(1, resourceAttributes);
    // Resource.dropped_attributes_count, written even when 0 as the official writer does.
    w.tag(2, VARINT);
    w.varint(0);
    w.finishLengthDelimited(resource, RESERVE_SMALL);
    this.resourceField = w.copy();
    w.reset();
    w.tag(1, LENGTH_DELIMITED);
    const scope = w.startLengthDelimited(RESERVE_SMALL);
    w.tag(1, LENGTH_DELIMITED);
    w.string(scopeName);
    w.finishLengthDelimited(scope, RESERVE_SMALL);
    this.scopeField = w.copy();
    w.reset();
  }

  serializeRequest(spans: readonly FinishedSpan[]): Uint8Array {
    // The official serializer writes nothing for no spans.
    if (spans.length === 0) return new Uint8Array(0);
    const w = this.writer;
    w.reset();
    w.ensure(2 * RESERVE_BATCH + this.resourceField.length + this.scopeField.length + 2);
    w.byte(0x0a); // ExportTraceServiceRequest.resource_spans (1)
    const resourceSpans = w.startLengthDelimited(RESERVE_BATCH);
    w.raw(this.resourceField);
    w.byte(0x12); // ResourceSpans.scope_spans (2)
    const scopeSpans = w.startLengthDelimited(RESERVE_BATCH);
    w.raw(this.scopeField);
    for (const span of spans) {
      w.tag(2, LENGTH_DELIMITED); // ScopeSpans.spans
      this.span(span);
    }
    w.finishLengthDelimited(scopeSpans, RESERVE_BATCH);
    w.finishLengthDelimited(resourceSpans, RESERVE_BATCH);
    return w.copy();
  }

  deserializeResponse(data: Uint8Array): IExportTraceServiceResponse {
    return ProtobufTraceSerializer.deserializeResponse(data);
  }

  /** Span fields in the official order: 1 trace_id ... 16 flags. */
  private span(span: FinishedSpan): void {
    const w = this.writer;
    const hop = span.trace;
    const start = w.startLengthDelimited(RESERVE_SPAN);
    w.tag(1, LENGTH_DELIMITED);
    w.hexBytes(hop.traceId);
    w.tag(2, LENGTH_DELIMITED);
    w.hexBytes(hop.spanId);
    const traceState = this.serializedTraceState(hop.traceState);
    if (traceState !== '') {
      w.tag(3, LENGTH_DELIMITED);
      w.string(traceState);
    }
    if (hop.parentSpanId !== '') {
      w.tag(4, LENGTH_DELIMITED);
      w.hexBytes(hop.parentSpanId);
    }
    this.repeatableField(this.spanName, span.name);
    w.tag(6, VARINT);
    w.varint(KIND_SERVER);
    w.tag(7, FIXED64);
    w.epochMillisAsNanos(span.startTimeMs);
    w.tag(8, FIXED64);
    w.epochMillisAsNanos(span.startTimeMs + span.durationMs);
    this.spanAttributesField(span.attributes);
    // dropped attributes, events and links counts: 0, written as the official writer does; no events or links.
    w.tag(10, VARINT);
    w.varint(0);
    w.tag(12, VARINT);
    w.varint(0);
    w.tag(14, VARINT);
    w.varint(0);
    w.tag(15, LENGTH_DELIMITED);
    const status = w.startLengthDelimited(RESERVE_SMALL);
    // The SDK's status message is written only when not empty; an error is ERROR even without one.
    if (span.error !== undefined && span.error !== '') {
      w.tag(2, LENGTH_DELIMITED);
      w.string(span.error);
    }
    w.tag(3, VARINT);
    w.varint(span.error === undefined ? STATUS_UNSET : STATUS_ERROR);
    w.finishLengthDelimited(status, RESERVE_SMALL);
    w.tag(16, FIXED32);
    w.fixed32(hop.parentSpanId === '' ? FLAGS_ROOT : FLAGS_REMOTE_PARENT);
    w.finishLengthDelimited(start, RESERVE_SPAN);
  }

  /** Repeated KeyValue in the object's own order, each value an AnyValue as the official writer encodes it: the resource's, once. */
  private attributes(field: number, attributes: Readonly<Record<string, AttributeValue>>): void {
    for (const key in attributes) {
      if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
      this.keyValue(field, encodeKeyField(key), attributes[key]);
    }
  }

  /** A span's attributes (`Span.attributes`, field 9) as `attributes` writes them, each value copied while it repeats. */
  private spanAttributesField(attributes: Readonly<Record<string, AttributeValue>>): void {
    for (const key in attributes) {
      if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
      this.repeatableField(this.lastField(key), attributes[key]);
    }
  }

  /** The field `last` stands for with `value`: encoded when the value changed, copied once it came twice in a row. */
  private repeatableField(last: LastField, value: AttributeValue | undefined): void {
    if (value !== last.value) {
      this.field(last, value);
      // Stored only when they change: a store of a new object into an old one runs the write barrier.
      last.value = value;
      if (last.bytes !== undefined) last.bytes = undefined;
    } else if (last.bytes === undefined) {
      const from = this.writer.pos;
      this.field(last, value);
      last.bytes = this.writer.slice(from);
    } else this.copy(last.bytes);
  }

  /** `Span.attributes` (field 9) when `last` has a key, else `Span.name` (field 5). */
  private field(last: LastField, value: AttributeValue | undefined): void {
    if (last.keyField !== undefined) this.keyValue(9, last.keyField, value);
    else {
      this.writer.tag(5, LENGTH_DELIMITED);
      this.writer.string(value as string);
    }
  }

  private keyValue(field: number, keyField: Uint8Array, value: AttributeValue | undefined): void {
    const w = this.writer;
    w.tag(field, LENGTH_DELIMITED);
    const keyValue = w.startLengthDelimited(RESERVE_SMALL);
    this.copy(keyField);
    w.tag(2, LENGTH_DELIMITED);
    const anyValue = w.startLengthDelimited(RESERVE_SMALL);
    this.anyValue(value);
    w.finishLengthDelimited(anyValue, RESERVE_SMALL);
    w.finishLengthDelimited(keyValue, RESERVE_SMALL);
  }

  private copy(bytes: Uint8Array): void {
    this.writer.ensure(bytes.length);
    this.writer.raw(bytes);
  }

  private lastField(key: string): LastField {
    let last = this.spanAttributes.get(key);
    if (last === undefined) {
      if (this.spanAttributes.size >= KEY_FIELDS_MAX) this.spanAttributes.clear();
      last = new LastField(encodeKeyField(key));
      this.spanAttributes.set(key, last);
    }
    return last;
  }

  /** Strings, booleans and numbers (integers of 64 bits as int_value, the rest as double); anything else an empty AnyValue, as the official writer leaves undefined. */
  private anyValue(value: AttributeValue | undefined): void {
    const w = this.writer;
    if (typeof value === 'string') {
      w.tag(1, LENGTH_DELIMITED);
      w.string(value);
    } else if (typeof value === 'boolean') {
      w.tag(2, VARINT);
      w.varint(value ? 1 : 0);
    } else if (typeof value === 'number') {
      if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63) {
        w.tag(3, VARINT);
        w.varint(value);
      } else {
        w.tag(4, FIXED64);
        w.double(value);
      }
    }
  }

  /** What the SDK's span would carry: the caller's tracestate parsed and bounded by TraceState. */
  private serializedTraceState(traceState: string): string {
    if (traceState === '') return '';
    if (traceState !== this.lastTraceState) {
      this.lastTraceState = traceState;
      this.lastTraceStateSerialized = new TraceState(traceState).serialize();
    }
    return this.lastTraceStateSerialized;
  }
}
