import type { TraceContext } from '../../engine/exchange';
import type { CounterDefinition } from '../../engine/ports';
import { serviceKey } from '../../engine/service-registry';

/** One finished request as a server span, in the terms of the OpenTelemetry HTTP conventions. */
export interface FinishedSpan {
  /** `{method} {http.route}`. */
  readonly name: string;
  readonly trace: TraceContext;
  /** Epoch ms (fractional) when the request arrived, and how long it took. */
  readonly startTimeMs: number;
  readonly durationMs: number;
  readonly attributes: Readonly<Record<string, string | number>>;
  /** The catalogued gateway error or the 5xx status: the span's status is then ERROR. */
  readonly error: string | undefined;
}

/**
 * Where sampled spans go (the OTLP adapter). `record` never blocks or throws: the span is queued
 * and exported in batches, or dropped and counted when the queue is full.
 */
export interface SpanExport {
  record(span: FinishedSpan): void;
  /** Exports what is queued (bounded by the export timeout) and stops. */
  close(): Promise<void>;
}

/** Provided only when `proxy.tracing.otlp.enabled`; spans are not built otherwise. */
export const SPAN_EXPORT = serviceKey<SpanExport>('tracing.spanExport');

/** Why a span never reached the collector: the queue was full, or its export failed. */
export const SPANS_DROPPED: CounterDefinition = {
  name: 'gateway_tracing_spans_dropped_total',
  help: 'Sampled spans not exported: the export queue was full (queue_full) or the collector refused or did not answer (export_failed)',
  labelNames: ['reason'],
};
