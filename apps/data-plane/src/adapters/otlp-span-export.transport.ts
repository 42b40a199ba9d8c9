import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzip } from 'node:zlib';
import type { ExportResponse, IExporterTransport } from '@opentelemetry/otlp-exporter-base';
import { OTLPExporterError } from '@opentelemetry/otlp-exporter-base';
import type { UpstreamClientError } from '../engine/upstream-client/upstream-client-error';
import type { UpstreamExchange, UpstreamResponseHandler } from '../engine/upstream-client/upstream-connection';
import type { ResponseHead } from '../engine/upstream-client/response-parser';
import { UpstreamPool } from '../engine/upstream-client/upstream-pool';

/** What the SDK's HTTP transport is given (`convertLegacyHttpOptions`'s result), the parts this one reads. */
export interface OtlpHttpParameters {
  readonly url: string;
  readonly headers: () => Promise<Record<string, string>> | Record<string, string>;
  readonly compression?: 'gzip' | 'none';
  readonly userAgent?: string;
}

/** As the SDK's HTTP transport: a response body past 4 MB fails the export (not retried). */
const MAX_RESPONSE_BODY_SIZE = 4 * 1024 * 1024;
/** The lean client's errors the SDK would retry (a connection closed or timed out)... */
const RETRYABLE_CODES = new Set(['UPSTREAM_CLOSED_EARLY', 'UPSTREAM_CONNECT_TIMEOUT', 'UPSTREAM_FIRST_BYTE_TIMEOUT', 'UPSTREAM_IDLE_TIMEOUT']);
/** ...and the socket errors on the SDK's own list; any other (a certificate refused) fails at once, as there. */
const RETRYABLE_SOCKET_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

function isRetryable(error: UpstreamClientError): boolean {
  if (RETRYABLE_CODES.has(error.code)) return true;
  const cause = error.cause as { code?: unknown } | undefined;
  return error.code === 'UPSTREAM_SOCKET' && typeof cause?.code === 'string' && RETRYABLE_SOCKET_ERRORS.has(cause.code);
}

/**
 * The SDK's internals this transport keeps as they are: its retry loop (5 attempts, backoff with
 * jitter, Retry-After, within the export's timeout), its status rules and its User-Agent. They are
 * not in the package's public exports, so they are loaded from its files; undefined when a
 * version lays them out differently, and the exporter then keeps the SDK's own HTTP transport.
 */
interface SdkInternals {
  createRetryingTransport(options: { transport: IExporterTransport }): IExporterTransport;
  isExportHTTPErrorRetryable(statusCode: number): boolean;
  parseRetryAfterToMills(value: string | undefined): number | undefined;
  version: string;
}

export function loadSdkInternals(): SdkInternals | undefined {
  try {
    // A require from the package's own folder: its `exports` map only governs imports by package name.
    const main = require.resolve('@opentelemetry/otlp-exporter-base');
    const load = createRequire(main);
    const dir = dirname(main);
    const retrying = load(join(dir, 'retrying-transport.js')) as Partial<SdkInternals>;
    const retryable = load(join(dir, 'is-export-retryable.js')) as Partial<SdkInternals>;
    const version = (load(join(dir, 'version.js')) as { VERSION?: unknown }).VERSION;
    const { createRetryingTransport } = retrying;
    const { isExportHTTPErrorRetryable, parseRetryAfterToMills } = retryable;
    if (typeof createRetryingTransport !== 'function' || typeof isExportHTTPErrorRetryable !== 'function' || typeof parseRetryAfterToMills !== 'function' || typeof version !== 'string') return undefined;
    return { createRetryingTransport, isExportHTTPErrorRetryable, parseRetryAfterToMills, version };
  } catch {
    return undefined;
  }
}

/**
 * The OTLP/HTTP export sent over the gateway's own lean HTTP/1.1 client instead of node's
 * `http.request` (issue 18): node's client shares its stream and header code with node's server,
 * and using it at all made that code megamorphic for every proxied request (+6k instructions a
 * request, docs/tracing.md). Behaves as the SDK's `HttpExporterTransport`: POST with the
 * configured headers and User-Agent, gzip when configured, 2xx success, 429/502/503/504 retried
 * (Retry-After honoured), other statuses fail with an OTLPExporterError, network errors and the
 * timeout retried. HTTPS verifies the collector's certificate against node's roots.
 */
export class LeanOtlpTransport implements IExporterTransport {
  private readonly pool: UpstreamPool;
  private readonly path: string;
  private readonly userAgent: string;

  constructor(
    private readonly parameters: OtlpHttpParameters,
    private readonly sdk: SdkInternals,
  ) {
    const url = new URL(parameters.url);
    const https = url.protocol === 'https:';
    // URL keeps IPv6 hosts in brackets; the socket wants the bare address.
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const port = url.port === '' ? (https ? 443 : 80) : Number(url.port);
    // A few connections: the SDK sends at most `concurrencyLimit` exports at once, usually one.
    this.pool = new UpstreamPool({ host, port, maxConnections: 4, ...(https ? { tls: {} } : {}) });
    this.path = `${url.pathname}${url.search}`;
    const base = `OTel-OTLP-Exporter-JavaScript/${sdk.version}`;
    this.userAgent = parameters.userAgent === undefined ? base : `${parameters.userAgent} ${base}`;
  }

  async send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
    const configured = await this.parameters.headers();
    const headers: string[] = [];
    for (const name in configured) headers.push(name, configured[name] as string);
    headers.push('User-Agent', this.userAgent);
    let body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (this.parameters.compression === 'gzip') {
      try {
        body = await new Promise<Buffer>((resolve, reject) => gzip(body, (error, zipped) => (error === null ? resolve(zipped) : reject(error))));
      } catch (error) {
        return { status: 'failure', error: error as Error };
      }
      headers.push('Content-Encoding', 'gzip');
    }
    return new Promise((resolve) => {
      const reader = new ExportResponseReader(this.sdk, resolve);
      const exchange = this.pool.request({ method: 'POST', path: this.path, headers, body }, reader);
      reader.startTimer(exchange, timeoutMillis);
    });
  }

  shutdown(): void {
    this.pool.close();
  }
}

/** One export's response, read into the SDK's `ExportResponse`; the first outcome wins. */
class ExportResponseReader implements UpstreamResponseHandler {
  private head: ResponseHead | undefined;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private timer: NodeJS.Timeout | undefined;
  private exchange: UpstreamExchange | undefined;
  private settled = false;

  constructor(
    private readonly sdk: SdkInternals,
    private readonly resolve: (response: ExportResponse) => void,
  ) {}

  startTimer(exchange: UpstreamExchange, timeoutMillis: number): void {
    if (this.settled) return;
    this.exchange = exchange;
    this.timer = setTimeout(() => {
      exchange.abort();
      this.settle({ status: 'retryable', error: new Error('Request timed out') });
    }, timeoutMillis);
  }

  onResponse(head: ResponseHead): void {
    this.head = head;
  }

  onData(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > MAX_RESPONSE_BODY_SIZE) {
      this.exchange?.abort();
      this.settle({ status: 'failure', error: new Error(`OTLP export response body exceeded size limit of ${MAX_RESPONSE_BODY_SIZE} bytes`) });
      return;
    }
    // The slice is the socket's read buffer: copied to outlive this call.
    this.chunks.push(Buffer.from(chunk));
  }

  onEnd(): void {
    const head = this.head as ResponseHead;
    const status = head.statusCode;
    if (status <= 299) this.settle({ status: 'success', data: Buffer.concat(this.chunks) });
    else if (this.sdk.isExportHTTPErrorRetryable(status)) this.settle({ status: 'retryable', retryInMillis: this.sdk.parseRetryAfterToMills(headerOf(head, 'retry-after')) });
    else this.settle({ status: 'failure', error: new OTLPExporterError(head.statusMessage, status, Buffer.concat(this.chunks).toString()) });
  }

  onError(error: UpstreamClientError): void {
    this.settle(isRetryable(error) ? { status: 'retryable', error } : { status: 'failure', error });
  }

  private settle(response: ExportResponse): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve(response);
  }
}

function headerOf(head: ResponseHead, name: string): string | undefined {
  const raw = head.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if ((raw[i] as string).toLowerCase() === name) return raw[i + 1];
  return undefined;
}
