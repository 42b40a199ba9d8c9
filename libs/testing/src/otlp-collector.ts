import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeTraceExport, type KeyValue } from './otlp-protobuf';

/** One span as an OTLP/HTTP export carried it, flattened for assertions. */
export interface CollectedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly traceState: string;
  readonly name: string;
  /** OTLP SpanKind: 2 is SERVER. */
  readonly kind: number;
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly resource: Readonly<Record<string, string | number | boolean>>;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
}

export interface OtlpCollector {
  /** `http://127.0.0.1:<port>/v1/traces`. */
  readonly endpoint: string;
  readonly spans: CollectedSpan[];
  /** The headers of every export request received, in order. */
  readonly exportHeaders: http.IncomingHttpHeaders[];
  /** The status the next exports get (200 accepts; 400 refuses without a retry). */
  answerWith(status: number): void;
  /** Resolves once a span of `traceId` arrived (fails after `timeoutMs`). */
  waitForTrace(traceId: string, timeoutMs?: number): Promise<CollectedSpan>;
  close(): Promise<void>;
}

function flatten(attributes: readonly KeyValue[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes) {
    out[key] = value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.doubleValue ?? value.boolValue ?? '';
  }
  return out;
}

/**
 * A fake OpenTelemetry collector: a real HTTP server on loopback that decodes OTLP/HTTP protobuf
 * trace exports (what @opentelemetry/exporter-trace-otlp-proto sends) and keeps their spans.
 */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const exportHeaders: http.IncomingHttpHeaders[] = [];
  const waiters = new Set<() => void>();
  let status = 200;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      exportHeaders.push(req.headers);
      try {
        if (req.headers['content-type'] !== 'application/x-protobuf') throw new Error(`not OTLP protobuf: ${req.headers['content-type']}`);
        const body = decodeTraceExport(Buffer.concat(chunks));
        for (const resourceSpans of body.resourceSpans) {
          const resource = flatten(resourceSpans.resource.attributes);
          for (const scope of resourceSpans.scopeSpans) {
            for (const { status, attributes, ...span } of scope.spans) spans.push({ ...span, statusCode: status.code, attributes: flatten(attributes), resource });
          }
        }
      } catch {
        res.writeHead(400).end();
        return;
      }
      for (const wake of waiters) wake();
      // An empty ExportTraceServiceResponse is zero bytes.
      res.writeHead(status, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    exportHeaders,
    answerWith: (next) => {
      status = next;
    },
    waitForTrace: (traceId, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const span = spans.find((s) => s.traceId === traceId);
          if (span === undefined) return false;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(span);
          return true;
        };
        const wake = (): void => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no span of trace ${traceId} within ${timeoutMs} ms (got ${spans.length} spans)`));
        }, timeoutMs);
        waiters.add(wake);
        check();
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
