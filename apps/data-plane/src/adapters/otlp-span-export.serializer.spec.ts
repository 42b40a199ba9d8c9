import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { FinishedSpan } from '../policies/tracing/span-export';
import { OtlpSpanSerializer } from './otlp-span-export.serializer';
import { ExportedSpan } from '../testing/exported-span.fixture';

type Attributes = Record<string, string | number | boolean>;

/** Our bytes and the official serializer's for the SDK's spans of the same requests (`ExportedSpan`). */
function bothEncodings(serializer: OtlpSpanSerializer, resourceAttributes: Record<string, string>, spans: readonly FinishedSpan[]): [Buffer, Buffer] {
  const source = { resource: resourceFromAttributes(resourceAttributes), scope: { name: 'api-gateway' } };
  const official = ProtobufTraceSerializer.serializeRequest(spans.map((span) => new ExportedSpan(span, source)));
  return [Buffer.from(serializer.serializeRequest(spans)), Buffer.from(official ?? new Uint8Array(0))];
}

function assertSameBytes([ours, official]: [Buffer, Buffer]): void {
  if (ours.equals(official)) return;
  let at = 0;
  while (at < ours.length && ours[at] === official[at]) at += 1;
  assert.fail(`${ours.length} bytes against the official ${official.length}, first difference at byte ${at}: ${ours.subarray(at, at + 16).toString('hex')} / ${official.subarray(at, at + 16).toString('hex')}`);
}

const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).chain((id) => fc.constantFrom(Buffer.from(id).toString('hex'), Buffer.from(id).toString('hex').toUpperCase()));
/** Any UTF-16: astral characters, lone surrogates (both encoders write U+FFFD), ASCII, long enough to need 2-byte lengths. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 40 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 200 }),
  fc.string({ unit: 'grapheme', minLength: 40, maxLength: 120 }),
);
const traceStateMember = fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_*/-]{0,12}$/), fc.stringMatching(/^[!-+\--<>-~]{1,16}$/)).map(([key, value]) => `${key}=${value}`);
const traceState = fc.oneof(fc.constant(''), fc.array(traceStateMember, { minLength: 1, maxLength: 40 }).map((members) => members.join(',')), text);
const number = fc.oneof(
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double(),
  fc.constantFrom(-0, 2 ** 53 + 2, 2 ** 63, -(2 ** 63), 2 ** 62, -(2 ** 40), 0xffffffff, 2 ** 32, -1, 1e300),
);
const attributes: fc.Arbitrary<Attributes> = fc.dictionary(text, fc.oneof(text, number, fc.boolean()), { maxKeys: 14 });

const finishedSpan: fc.Arbitrary<FinishedSpan> = fc.record({
  name: text,
  trace: fc.record({ traceId: hex(16), spanId: hex(8), parentSpanId: fc.oneof(fc.constant(''), hex(8)), sampled: fc.constant(true), traceState }),
  startTimeMs: fc.oneof(fc.double({ min: 0, max: 4e12, noNaN: true }), fc.integer({ min: 0, max: 4e12 }), fc.constant(1_700_000_000_000.5)),
  durationMs: fc.oneof(fc.double({ min: 0, max: 1e7, noNaN: true }), fc.constant(12.25)),
  attributes: attributes as fc.Arbitrary<FinishedSpan['attributes']>,
  error: fc.oneof(fc.constant(undefined), fc.constant(''), text),
});
const resource = fc.record({ 'service.name': text, 'service.version': text });

describe('OtlpSpanSerializer against the official ProtobufTraceSerializer', () => {
  it('writes the same bytes for random batches (ids, unicode names and attributes, numbers, booleans, tracestate, status, parent or root), batch after batch', () => {
    fc.assert(
      fc.property(resource, fc.array(fc.array(finishedSpan, { maxLength: 12 }), { minLength: 1, maxLength: 3 }), (resourceAttributes, batches) => {
        // One serializer for every batch, as the adapter keeps it: its buffer and tracestate cache must not leak between batches.
        const serializer = new OtlpSpanSerializer(resourceAttributes, 'api-gateway');
        for (const batch of batches) assertSameBytes(bothEncodings(serializer, resourceAttributes, batch));
      }),
      { numRuns: 400 },
    );
  });

  it('writes the same bytes when names and attribute values repeat, change and come back (fields copied while they repeat)', () => {
    // Few keys and values, so that most fields repeat their last value (copied), some change (encoded
    // again) and values equal under === but of another type or sign (0 and -0, 1 and true, '1') meet.
    const value = fc.constantFrom<string | number | boolean>('GET', 'POST', '/api/*', 'é/ü', '', '1', 1, 0, -0, 200, 2 ** 40, -5, 1.5, true, false);
    const repeating = fc.record({
      name: fc.constantFrom('GET /api/*', 'POST /api/*', 'HTTP unmatched', 'é'),
      attributes: fc.dictionary(fc.constantFrom('http.route', 'http.request.method', 'a', 'ü'), value, { maxKeys: 4 }),
    });
    fc.assert(
      fc.property(fc.array(fc.array(fc.tuple(finishedSpan, repeating), { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 }), (batches) => {
        const serializer = new OtlpSpanSerializer({ 'service.name': 'a' }, 'api-gateway');
        for (const batch of batches) {
          const spans = batch.map(([span, { name, attributes }]): FinishedSpan => ({ ...span, name, attributes: attributes as FinishedSpan['attributes'] }));
          assertSameBytes(bothEncodings(serializer, { 'service.name': 'a' }, spans));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('writes the same bytes for a batch past 2 MB (lengths of 4 bytes, a grown buffer) and for no spans', () => {
    const resourceAttributes = { 'service.name': 'api-gateway', 'service.version': '1.0.0' };
    const serializer = new OtlpSpanSerializer(resourceAttributes, 'api-gateway');
    const spans: FinishedSpan[] = [];
    for (let i = 0; i < 8000; i += 1) {
      spans.push({
        name: 'GET /api/*',
        trace: { traceId: i.toString(16).padStart(32, '0'), spanId: i.toString(16).padStart(16, 'f'), parentSpanId: i % 2 === 0 ? '' : '00f067aa0ba902b7', sampled: true, traceState: i % 3 === 0 ? 'rojo=1,congo=2' : '' },
        startTimeMs: 1_700_000_000_000 + i / 7,
        durationMs: i / 3,
        attributes: { 'url.path': `/api/${'é'.repeat(i % 200)}${'x'.repeat(100)}`, 'http.response.status_code': 200 + (i % 400) },
        error: i % 5 === 0 ? 'UPSTREAM_ERROR' : undefined,
      });
    }
    const [ours, official] = bothEncodings(serializer, resourceAttributes, spans);
    assert.ok(ours.length > 2 ** 21, `a batch of ${ours.length} bytes`);
    assertSameBytes([ours, official]);
    assertSameBytes(bothEncodings(serializer, resourceAttributes, []));
    assert.equal(serializer.serializeRequest([]).length, 0);
  });

  it('hands out a copy: the next batch does not change the bytes of one the exporter may still retry', () => {
    const serializer = new OtlpSpanSerializer({ 'service.name': 'a' }, 'api-gateway');
    const span = (name: string): FinishedSpan => ({ name, trace: { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), parentSpanId: '', sampled: true, traceState: '' }, startTimeMs: 1, durationMs: 1, attributes: {}, error: undefined });
    const first = serializer.serializeRequest([span('first')]);
    const kept = Buffer.from(first).toString('hex');
    serializer.serializeRequest([span('second')]);
    assert.equal(Buffer.from(first).toString('hex'), kept);
  });
});
