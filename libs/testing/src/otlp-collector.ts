import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carried it, flattened for assertions. */
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

type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };
interface ExportBody {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }>;
  }>;
}

function flatten(attributes: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    out[key] = value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.doubleValue ?? value.boolValue ?? '';
  }
  return out;
}

/**
 * A fake OpenTelemetry collector: a real HTTP server on loopback that decodes OTLP/HTTP JSON
 * trace exports (what @opentelemetry/exporter-trace-otlp-http sends) and keeps their spans.
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
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportBody;
        for (const resourceSpans of body.resourceSpans ?? []) {
          const resource = flatten(resourceSpans.resource?.attributes);
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                traceId: String(span['traceId']),
                spanId: String(span['spanId']),
                parentSpanId: typeof span['parentSpanId'] === 'string' ? span['parentSpanId'] : '',
                traceState: typeof span['traceState'] === 'string' ? span['traceState'] : '',
                name: String(span['name']),
                kind: Number(span['kind']),
                statusCode: Number((span['status'] as { code?: number } | undefined)?.code ?? 0),
                attributes: flatten(span['attributes'] as KeyValue[] | undefined),
                resource,
                startTimeUnixNano: String(span['startTimeUnixNano']),
                endTimeUnixNano: String(span['endTimeUnixNano']),
              });
            }
          }
        }
      } catch {
        res.writeHead(400).end();
        return;
      }
      for (const wake of waiters) wake();
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
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
