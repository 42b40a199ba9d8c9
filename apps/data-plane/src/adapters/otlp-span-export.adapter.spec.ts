import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes, type Context } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, type IdGenerator } from '@opentelemetry/sdk-trace-base';
import { PROXY_DEFAULTS, type OtlpExportSettings } from '@gateway/route-model';
import { startOtlpCollector, type OtlpCollector } from '@gateway/testing';
import type { Logger } from '../engine/ports';
import type { FinishedSpan } from '../policies/tracing/span-export';
import { OtlpSpanExport, readCollectorHeaders } from './otlp-span-export.adapter';

const counter = (): { value: number; inc(): void } => ({
  value: 0,
  inc() {
    this.value += 1;
  },
});

const warnings: string[] = [];
const logger: Logger = { debug: () => {}, info: () => {}, warn: (fields, message) => warnings.push(`${message} ${JSON.stringify(fields)}`), error: () => {} };

let next = 0;
function span(overrides: Partial<FinishedSpan['trace']> = {}, error?: string): FinishedSpan {
  next += 1;
  const traceId = next.toString(16).padStart(32, 'a');
  return {
    name: 'GET /api/*',
    trace: { traceId, spanId: next.toString(16).padStart(16, 'b'), parentSpanId: '', sampled: true, traceState: '', ...overrides },
    startTimeMs: 1_700_000_000_000.5,
    durationMs: 12.25,
    attributes: { 'http.route': '/api/*', 'http.response.status_code': error === undefined ? 200 : 502 },
    error,
  };
}

/** Every attribute type and the optional ones the tracing policy may add. */
const fullAttributes = {
  'http.route': '/api/*',
  'gateway.route.id': 'api',
  'gateway.upstream': 'http://127.0.0.1:8080',
  'http.request.method': '_OTHER',
  'url.path': '/api/bytes/100',
  'url.scheme': 'http',
  'http.response.status_code': 503,
  'client.address': '127.0.0.1',
  'gateway.correlation_id': 'req-1-abc',
  'http.request.method_original': 'PURGE',
  'gateway.upstream.attempts': 3,
  'error.type': '503',
};

/** The body and headers of the first OTLP export `send` posts to a raw loopback server. */
async function captureExport(send: (endpoint: string) => Promise<void>): Promise<{ body: Buffer; headers: http.IncomingHttpHeaders }> {
  const bodies: Buffer[] = [];
  const heads: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      heads.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await send(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  assert.equal(bodies.length, 1, 'one export request');
  return { body: bodies[0] as Buffer, headers: heads[0] as http.IncomingHttpHeaders };
}

async function viaAdapter(endpoint: string, requests: readonly FinishedSpan[]): Promise<void> {
  const dropped = { queueFull: counter(), exportFailed: counter() };
  const spans = new OtlpSpanExport({ settings: { ...PROXY_DEFAULTS.tracing.otlp, enabled: true, endpoint, timeout: 5000 }, headers: {}, serviceVersion: '9.9.9', logger, dropped });
  for (const request of requests) spans.record(request);
  await spans.close();
  assert.deepEqual([dropped.queueFull.value, dropped.exportFailed.value], [0, 0]);
}

/** The reference: what the adapter did before it built its own spans (Tracer, SpanImpl, BatchSpanProcessor). */
async function viaSdk(endpoint: string, requests: readonly FinishedSpan[]): Promise<void> {
  const ids = { traceId: '', spanId: '' };
  const idGenerator: IdGenerator = { generateTraceId: () => ids.traceId, generateSpanId: () => ids.spanId };
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'api-gateway', 'service.version': '9.9.9' }),
    sampler: new AlwaysOnSampler(),
    idGenerator,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: endpoint, timeoutMillis: 5000 }), { scheduledDelayMillis: 60_000 })],
  });
  const tracer = provider.getTracer('api-gateway');
  for (const request of requests) {
    const hop = request.trace;
    ids.traceId = hop.traceId;
    ids.spanId = hop.spanId;
    let parent: Context = ROOT_CONTEXT;
    if (hop.parentSpanId !== '') {
      const traceState = hop.traceState === '' ? {} : { traceState: new TraceState(hop.traceState) };
      parent = trace.setSpanContext(ROOT_CONTEXT, { traceId: hop.traceId, spanId: hop.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true, ...traceState });
    }
    const started = tracer.startSpan(request.name, { kind: SpanKind.SERVER, startTime: request.startTimeMs }, parent);
    started.setAttributes(request.attributes as Attributes);
    if (request.error !== undefined) started.setStatus({ code: SpanStatusCode.ERROR, message: request.error });
    started.end(request.startTimeMs + request.durationMs);
  }
  await provider.shutdown();
}

function exporter(collector: OtlpCollector, overrides: Partial<OtlpExportSettings> = {}) {
  const dropped = { queueFull: counter(), exportFailed: counter() };
  const spans = new OtlpSpanExport({
    settings: { ...PROXY_DEFAULTS.tracing.otlp, enabled: true, endpoint: collector.endpoint, scheduledDelay: 20, timeout: 5000, ...overrides },
    headers: { authorization: 'Bearer collector-token' },
    serviceVersion: '9.9.9',
    logger,
    dropped,
  });
  return { spans, dropped };
}

describe('OtlpSpanExport (OpenTelemetry SDK, OTLP/HTTP protobuf) against a collector on loopback', () => {
  let collector: OtlpCollector;
  before(async () => {
    collector = await startOtlpCollector();
  });
  after(() => collector.close());

  it('exports server spans with the gateway\'s own ids, parent, times, status and resource, sending the collector headers', async () => {
    const { spans, dropped } = exporter(collector);
    const root = span();
    const child = span({ parentSpanId: '1111111111111111', traceState: 'rojo=1' }, 'UPSTREAM_ERROR');
    spans.record(root);
    spans.record(child);
    const [gotRoot, gotChild] = await Promise.all([collector.waitForTrace(root.trace.traceId), collector.waitForTrace(child.trace.traceId)]);
    await spans.close();
    assert.equal(gotRoot.spanId, root.trace.spanId);
    assert.equal(gotRoot.parentSpanId, '');
    assert.equal(gotRoot.kind, 2, 'SERVER');
    assert.equal(gotRoot.statusCode, 0);
    assert.equal(gotRoot.name, 'GET /api/*');
    assert.equal(gotRoot.attributes['http.route'], '/api/*');
    assert.equal(gotRoot.resource['service.name'], 'api-gateway');
    assert.equal(gotRoot.resource['service.version'], '9.9.9');
    assert.equal(gotRoot.startTimeUnixNano, '1700000000000500000');
    assert.equal(gotRoot.endTimeUnixNano, '1700000000012750000');
    assert.equal(gotChild.spanId, child.trace.spanId);
    assert.equal(gotChild.parentSpanId, '1111111111111111');
    assert.equal(gotChild.traceState, 'rojo=1');
    assert.equal(gotChild.statusCode, 2, 'ERROR');
    assert.equal(collector.exportHeaders.at(-1)?.['authorization'], 'Bearer collector-token');
    assert.deepEqual([dropped.queueFull.value, dropped.exportFailed.value], [0, 0]);
  });

  it('drops and counts spans past the queue bound instead of growing, and counts failed exports', async () => {
    const { spans, dropped } = exporter(collector, { maxQueueSize: 3, maxExportBatchSize: 3, scheduledDelay: 60_000 });
    const batch = [span(), span(), span(), span(), span()];
    for (const s of batch) spans.record(s);
    assert.equal(dropped.queueFull.value, 2);
    await Promise.all(batch.slice(0, 3).map((s) => collector.waitForTrace(s.trace.traceId)));
    // The collector has the batch; the exporter learns so from its response.
    while (spans.queued > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    collector.answerWith(400);
    const refused = span();
    spans.record(refused);
    await spans.close();
    collector.answerWith(200);
    assert.equal(dropped.exportFailed.value, 1);
    assert.ok(collector.spans.some((s) => s.traceId === refused.trace.traceId), 'the collector saw the export it refused');
    assert.ok(!collector.spans.some((s) => s.traceId === batch[3]?.trace.traceId || s.traceId === batch[4]?.trace.traceId));
    assert.match(warnings.join('\n'), /span export to the OTLP collector failed; spans dropped \{"spans":1/);
    assert.doesNotMatch(warnings.join('\n'), /collector-token/);
  });

  it('sends the bytes the SDK\'s own tracer, batch processor and exporter would send for the same requests', async () => {
    const requests = [
      span(),
      span({ parentSpanId: '1111111111111111', traceState: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE' }, 'UPSTREAM_TIMEOUT'),
      { ...span({ parentSpanId: '2222222222222222' }), name: 'HTTP /api/*', attributes: fullAttributes },
      // Text that is not ASCII (the serializer's other string path), a long tracestate, a span past 127 bytes of attributes.
      {
        ...span({ parentSpanId: '4444444444444444', traceState: Array.from({ length: 20 }, (_, i) => `k${i}=v${i}`).join(',') }, 'UPSTREAM_ERROR \u00e9'),
        name: 'GET /api/caf\u00e9/*',
        durationMs: 0.001,
        attributes: { ...fullAttributes, 'url.path': `/api/caf\u00e9/\ud83d\ude00/${'x'.repeat(200)}`, 'gateway.upstream.attempts': 2 ** 40 },
      },
    ];
    const [ours, sdk] = await Promise.all([captureExport((endpoint) => viaAdapter(endpoint, requests)), captureExport((endpoint) => viaSdk(endpoint, requests))]);
    assert.ok(ours.body.length > 300, `an export of ${ours.body.length} bytes`);
    assert.equal(ours.body.toString('hex'), sdk.body.toString('hex'));
    // The same export as the SDK's HTTP delegate sends it: content type, user agent, encoding. Only the
    // framing differs: the lean client sends the length it knows, node's client streams it chunked.
    const sent = (headers: http.IncomingHttpHeaders) => [headers['content-type'], headers['user-agent'], headers['content-encoding']];
    assert.deepEqual(sent(ours.headers), sent(sdk.headers));
    assert.equal(ours.headers['content-length'], String(ours.body.length));
    assert.equal(sdk.headers['transfer-encoding'], 'chunked');
  });

  it('decodes at the collector with every field of the span', async () => {
    const { spans } = exporter(collector);
    const child = { ...span({ parentSpanId: '3333333333333333', traceState: 'rojo=1' }, '503'), attributes: fullAttributes };
    spans.record(child);
    const got = await collector.waitForTrace(child.trace.traceId);
    await spans.close();
    assert.deepEqual(got, {
      traceId: child.trace.traceId,
      spanId: child.trace.spanId,
      parentSpanId: '3333333333333333',
      traceState: 'rojo=1',
      name: 'GET /api/*',
      kind: 2,
      statusCode: 2,
      attributes: fullAttributes,
      resource: { 'service.name': 'api-gateway', 'service.version': '9.9.9' },
      startTimeUnixNano: '1700000000000500000',
      endTimeUnixNano: '1700000000012750000',
    });
  });

  it('counts a batch the collector does not answer within the timeout as failed, once', async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const dropped = { queueFull: counter(), exportFailed: counter() };
    const spans = new OtlpSpanExport({
      settings: { ...PROXY_DEFAULTS.tracing.otlp, enabled: true, endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1/traces`, scheduledDelay: 10, timeout: 200 },
      headers: {},
      serviceVersion: '9.9.9',
      logger,
      dropped,
    });
    spans.record(span());
    spans.record(span());
    await spans.close();
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
    assert.equal(dropped.exportFailed.value, 2);
    assert.equal(spans.queued, 0);
  });

  it('reads collector header values from the environment, naming the field of a variable that is not set', () => {
    assert.deepEqual(readCollectorHeaders({ authorization: 'OTLP_TOKEN' }, { OTLP_TOKEN: 'Bearer t' }), { headers: { authorization: 'Bearer t' }, errors: [] });
    assert.deepEqual(readCollectorHeaders({ authorization: 'OTLP_TOKEN', 'x-tenant': 'TENANT' }, { TENANT: '' }).errors.map((e) => e.field), [
      'proxy.tracing.otlp.headersFromEnv.authorization',
      'proxy.tracing.otlp.headersFromEnv.x-tenant',
    ]);
    assert.deepEqual(readCollectorHeaders(undefined, {}), { headers: {}, errors: [] });
  });
});
