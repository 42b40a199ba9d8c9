import { context } from '@opentelemetry/api';
import { ExportResultCode, suppressTracing, type ExportResult } from '@opentelemetry/core';
import { OTLPExporterBase, createOtlpNetworkExportDelegate, type IOtlpExportDelegate } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate, createOtlpHttpExporterMetrics } from '@opentelemetry/otlp-exporter-base/node-http';
import type { IExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { FieldError, OtlpExportSettings } from '@gateway/route-model';
import type { BoundCounter, Logger } from '../engine/ports';
import type { FinishedSpan, SpanExport } from '../policies/tracing/span-export';
import { ExportBatcher } from './otlp-span-export.batcher';
import { OtlpSpanSerializer } from './otlp-span-export.serializer';
import { LeanOtlpTransport, loadSdkInternals } from './otlp-span-export.transport';

export interface OtlpSpanExportOptions {
  readonly settings: OtlpExportSettings & { endpoint: string };
  /** Header values, already read from the environment variables `headersFromEnv` names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceVersion: string;
  readonly logger: Logger;
  readonly dropped: { readonly queueFull: BoundCounter; readonly exportFailed: BoundCounter };
}

/** A failed export is worth one warning a minute, not one per batch while a collector is down. */
const EXPORT_WARNING_INTERVAL_MS = 60_000;

/** The exporter's self-observability names, as `OTLPTraceExporter` gives them (not exported by its package). */
const SPAN_EXPORTER_COMPONENT = 'otlp_http_span_exporter';
const SPAN_COUNT: IExporterMetricsHelper<readonly FinishedSpan[]> = { name: 'span', countItems: (spans) => spans.length };

/**
 * SpanExport over OTLP/HTTP protobuf. The export is the official OpenTelemetry exporter's
 * (`OTLPExporterBase` with the HTTP delegate of `@opentelemetry/otlp-exporter-base`, exactly as
 * `OTLPTraceExporter` of `@opentelemetry/exporter-trace-otlp-proto` builds it: transport, headers,
 * timeout, retries, concurrency and response handling); the encoding of the spans is ours
 * (`OtlpSpanSerializer`, byte for byte the official `ProtobufTraceSerializer`'s for the SDK's
 * spans of the same requests, at a fraction of its cost: docs/tracing.md, "Cost"), and so is the
 * batching (`ExportBatcher`, the BatchSpanProcessor's settings). A request's span is queued as the
 * policy's `FinishedSpan` and encoded straight from it when its batch leaves. Every span the
 * gateway does not export is counted: past `maxQueueSize` (queued plus being exported) it is
 * dropped before it is queued, and a batch the collector refuses or does not answer within
 * `timeout` is dropped whole.
 */
export class OtlpSpanExport implements SpanExport {
  private readonly exporter: OTLPExporterBase<readonly FinishedSpan[]>;
  private readonly batcher: ExportBatcher<FinishedSpan>;
  private failedSinceWarning = 0;
  private lastWarningAt = -Infinity;

  constructor(private readonly options: OtlpSpanExportOptions) {
    const { settings } = options;
    const serializer = new OtlpSpanSerializer({ 'service.name': settings.serviceName, 'service.version': options.serviceVersion }, 'api-gateway');
    const http = convertLegacyHttpOptions({ url: settings.endpoint, headers: { ...options.headers }, timeoutMillis: settings.timeout }, 'TRACES', 'v1/traces', {
      'Content-Type': 'application/x-protobuf',
    });
    this.exporter = new OTLPExporterBase(exportDelegate(http, serializer));
    this.batcher = new ExportBatcher<FinishedSpan>(
      { maxQueueSize: settings.maxQueueSize, maxExportBatchSize: Math.min(settings.maxExportBatchSize, settings.maxQueueSize), scheduledDelay: settings.scheduledDelay, timeout: settings.timeout },
      (batch, done) => this.send(batch, done),
      (count, result) => this.settled(count, result),
    );
  }

  /** Spans queued or being exported. */
  get queued(): number {
    return this.batcher.size;
  }

  record(span: FinishedSpan): void {
    if (!this.batcher.add(span)) this.options.dropped.queueFull.inc();
  }

  async close(): Promise<void> {
    await this.batcher.close();
    // The exporter waits for the requests it has in flight; a failure is already counted and logged.
    await this.exporter.shutdown().catch(() => undefined);
  }

  private send(batch: readonly FinishedSpan[], done: (result: ExportResult) => void): void {
    // As the SDK's processor does: an HTTP instrumentation, if one is ever registered, must not trace the export's own request.
    context.with(suppressTracing(context.active()), () => this.exporter.export(batch, done));
  }

  private settled(count: number, result: ExportResult): void {
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

/**
 * The SDK's HTTP export delegate with its transport swapped for one over the gateway's lean client
 * (the SDK's retries, bounded concurrency, timeout and metrics kept: otlp-span-export.transport.ts);
 * the SDK's own node:http transport if its internals cannot be loaded.
 */
function exportDelegate(http: ReturnType<typeof convertLegacyHttpOptions>, serializer: OtlpSpanSerializer): IOtlpExportDelegate<readonly FinishedSpan[]> {
  const sdk = loadSdkInternals();
  if (sdk === undefined) return createOtlpHttpExportDelegate(http, serializer, SPAN_EXPORTER_COMPONENT, SPAN_COUNT, undefined);
  const metrics = createOtlpHttpExporterMetrics(SPAN_EXPORTER_COMPONENT, SPAN_COUNT, http.url, undefined);
  return createOtlpNetworkExportDelegate(http, serializer, metrics, sdk.createRetryingTransport({ transport: new LeanOtlpTransport(http, sdk) }));
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
