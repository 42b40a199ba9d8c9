import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes, type Context, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, TraceState, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, type IdGenerator, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { FieldError, OtlpExportSettings } from '@gateway/route-model';
import type { BoundCounter, Logger } from '../engine/ports';
import type { FinishedSpan, SpanExport } from '../policies/tracing/span-export';

export interface OtlpSpanExportOptions {
  readonly settings: OtlpExportSettings & { endpoint: string };
  /** Header values, already read from the environment variables `headersFromEnv` names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceVersion: string;
  readonly logger: Logger;
  readonly dropped: { readonly queueFull: BoundCounter; readonly exportFailed: BoundCounter };
}

/**
 * The gateway decides trace and span ids itself (they went upstream in traceparent before the span
 * existed): the SDK is handed them through its IdGenerator extension point, set just before the
 * synchronous startSpan that reads them.
 */
class GatewayIds implements IdGenerator {
  traceId = '';
  spanId = '';
  generateTraceId(): string {
    return this.traceId;
  }
  generateSpanId(): string {
    return this.spanId;
  }
}

/** A failed export is worth one warning a minute, not one per batch while a collector is down. */
const EXPORT_WARNING_INTERVAL_MS = 60_000;

/**
 * SpanExport with the OpenTelemetry SDK: spans batched by BatchSpanProcessor and sent by the
 * OTLP/HTTP exporter in protobuf (OTLP/HTTP's default encoding, and cheaper per span than JSON:
 * docs/tracing.md, "Cost"). The queue is bounded here, in front of the SDK's own, so every span
 * the gateway does not export is counted: `pending` counts spans handed to the SDK until their
 * export ends, and a span past `maxQueueSize` is dropped before it is built.
 */
export class OtlpSpanExport implements SpanExport {
  private readonly ids = new GatewayIds();
  private readonly provider: BasicTracerProvider;
  private readonly tracer: Tracer;
  private readonly maxQueueSize: number;
  private pending = 0;
  private failedSinceWarning = 0;
  private lastWarningAt = -Infinity;

  constructor(private readonly options: OtlpSpanExportOptions) {
    const { settings } = options;
    this.maxQueueSize = settings.maxQueueSize;
    const exporter = new OTLPTraceExporter({ url: settings.endpoint, headers: { ...options.headers }, timeoutMillis: settings.timeout });
    const processor = new BatchSpanProcessor(new SettledExports(exporter, (count, result) => this.settled(count, result)), {
      maxQueueSize: settings.maxQueueSize,
      maxExportBatchSize: settings.maxExportBatchSize,
      scheduledDelayMillis: settings.scheduledDelay,
      exportTimeoutMillis: settings.timeout,
    });
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': options.serviceVersion }),
      // Sampling was decided when the request arrived (its flag went upstream); every span handed over is exported.
      sampler: new AlwaysOnSampler(),
      idGenerator: this.ids,
      spanProcessors: [processor],
    });
    this.tracer = this.provider.getTracer('api-gateway');
  }

  /** Spans handed to the SDK whose export has not ended yet. */
  get queued(): number {
    return this.pending;
  }

  record(span: FinishedSpan): void {
    if (this.pending >= this.maxQueueSize) {
      this.options.dropped.queueFull.inc();
      return;
    }
    this.pending += 1;
    const { trace: hop } = span;
    this.ids.traceId = hop.traceId;
    this.ids.spanId = hop.spanId;
    // Attributes after the start, not in its options: there the SDK copies them twice more for the sampler, which has no use for them.
    const started = this.tracer.startSpan(span.name, { kind: SpanKind.SERVER, startTime: span.startTimeMs }, parentContext(hop));
    started.setAttributes(span.attributes as Attributes);
    if (span.error !== undefined) started.setStatus({ code: SpanStatusCode.ERROR, message: span.error });
    started.end(span.startTimeMs + span.durationMs);
  }

  async close(): Promise<void> {
    // The SDK rejects when the last flush fails; that failure is already counted and logged.
    await this.provider.shutdown().catch(() => undefined);
  }

  private settled(count: number, result: ExportResult): void {
    this.pending -= count;
    if (result.code === ExportResultCode.SUCCESS) return;
    for (let i = 0; i < count; i += 1) this.options.dropped.exportFailed.inc();
    this.failedSinceWarning += count;
    const now = Date.now();
    if (now - this.lastWarningAt < EXPORT_WARNING_INTERVAL_MS) return;
    this.lastWarningAt = now;
    // The message only: the request (and its headers, which may hold the collector's credentials) is never logged.
    this.options.logger.warn({ spans: this.failedSinceWarning, error: result.error?.message ?? 'export failed' }, 'span export to the OTLP collector failed; spans dropped');
    this.failedSinceWarning = 0;
  }
}

function parentContext(hop: FinishedSpan['trace']): Context {
  if (hop.parentSpanId === '') return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: hop.traceId,
    spanId: hop.parentSpanId,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    ...(hop.traceState === '' ? {} : { traceState: new TraceState(hop.traceState) }),
  });
}

/** Reports how each export ended, so the queue in front of the SDK stays exact and failures are counted. */
class SettledExports implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly settled: (count: number, result: ExportResult) => void,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    let reported = false;
    const report = (result: ExportResult): void => {
      if (reported) return;
      reported = true;
      this.settled(spans.length, result);
      done(result);
    };
    try {
      this.inner.export(spans, report);
    } catch (error) {
      report({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * The collector's header values from the environment variables `headersFromEnv` names, or an
 * error naming the field of each variable that is not set (the data plane refuses to start rather
 * than export without the collector's credentials).
 */
export function readCollectorHeaders(headersFromEnv: Readonly<Record<string, string>> | undefined, env: NodeJS.ProcessEnv): { headers: Record<string, string>; errors: FieldError[] } {
  const headers: Record<string, string> = {};
  const errors: FieldError[] = [];
  for (const [name, variable] of Object.entries(headersFromEnv ?? {})) {
    const value = env[variable];
    if (value === undefined || value === '') {
      errors.push({ field: `proxy.tracing.otlp.headersFromEnv.${name}`, code: 'VALIDATION_ERROR', message: `environment variable ${variable} (header ${name} of the OTLP collector) is not set` });
    } else headers[name] = value;
  }
  return { headers, errors };
}
