import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
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

  it('reads collector header values from the environment, naming the field of a variable that is not set', () => {
    assert.deepEqual(readCollectorHeaders({ authorization: 'OTLP_TOKEN' }, { OTLP_TOKEN: 'Bearer t' }), { headers: { authorization: 'Bearer t' }, errors: [] });
    assert.deepEqual(readCollectorHeaders({ authorization: 'OTLP_TOKEN', 'x-tenant': 'TENANT' }, { TENANT: '' }).errors.map((e) => e.field), [
      'proxy.tracing.otlp.headersFromEnv.authorization',
      'proxy.tracing.otlp.headersFromEnv.x-tenant',
    ]);
    assert.deepEqual(readCollectorHeaders(undefined, {}), { headers: {}, errors: [] });
  });
});
