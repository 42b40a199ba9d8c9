import { SpanKind, SpanStatusCode, TraceFlags, type HrTime, type SpanContext, type SpanStatus } from '@opentelemetry/api';
import { TraceState, hrTimeDuration, millisToHrTime, type InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { FinishedSpan } from '../policies/tracing/span-export';

/** What every span of one exporter shares: the official serializer groups spans by these objects' identity. */
export interface SpanSource {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
}

/** The status of a span that is not an error: shared, as the SDK's span starts with `{ code: UNSET }`. */
const UNSET_STATUS: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });
const NONE: never[] = [];

/**
 * A finished request as the OpenTelemetry SDK's `ReadableSpan`, the type the official OTLP
 * serializer takes: the reference our own `OtlpSpanSerializer` is held to. Not on the export path
 * any more (the serializer encodes the policy's `FinishedSpan` directly); the specs hand these to
 * the official `ProtobufTraceSerializer` and require its bytes. The fields are the ones the SDK's
 * span would have for the same request (a SERVER span started and ended at epoch milliseconds,
 * attributes in the policy's order, sampled, the caller's span as a remote parent with its
 * tracestate); the adapter spec checks that against a span built by the SDK's tracer.
 */
export class ExportedSpan implements ReadableSpan {
  readonly name: string;
  readonly kind = SpanKind.SERVER;
  readonly parentSpanContext: SpanContext | undefined;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly status: SpanStatus;
  readonly attributes: FinishedSpan['attributes'];
  readonly links = NONE;
  readonly events = NONE;
  readonly ended = true;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  private readonly context: SpanContext;

  constructor(span: FinishedSpan, source: SpanSource) {
    const hop = span.trace;
    this.name = span.name;
    // The SDK's span copies the parent's tracestate (parsed by TraceState, which applies its own bounds).
    const traceState = hop.traceState === '' ? undefined : new TraceState(hop.traceState);
    this.context = { traceId: hop.traceId, spanId: hop.spanId, traceFlags: TraceFlags.SAMPLED, ...(traceState === undefined ? {} : { traceState }) };
    this.parentSpanContext =
      hop.parentSpanId === '' ? undefined : { traceId: hop.traceId, spanId: hop.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true, ...(traceState === undefined ? {} : { traceState }) };
    // The same conversion as the SDK's for a start and end given in epoch milliseconds.
    this.startTime = millisToHrTime(span.startTimeMs);
    this.endTime = millisToHrTime(span.startTimeMs + span.durationMs);
    this.status = span.error === undefined ? UNSET_STATUS : { code: SpanStatusCode.ERROR, message: span.error };
    this.attributes = span.attributes;
    this.resource = source.resource;
    this.instrumentationScope = source.scope;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  /** Not read by the OTLP serializer; computed on demand. */
  get duration(): HrTime {
    return hrTimeDuration(this.startTime, this.endTime);
  }
}
