import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ResponseParser, type ResponseHead, type ResponseSink } from './response-parser';

/*
 * Differential proof of the response parser: fast-check generates responses (valid ones and
 * hostile ones), the same bytes go to node's own parser (llhttp, through http.request against a
 * raw server answering them, insecureHTTPParser off) and to ours (split at random points, so every
 * state is entered mid-buffer). Both must reach the same verdict and, when they accept, the same
 * message: status, reason, raw header list, body, trailers. The only allowed difference is ours
 * refusing where node accepts, and only for the features listed in STRICTER, each with its reason.
 */

const CRLF = '\r\n';

/** What a generated response is made of; `features` name the hostile parts it carries. */
interface GeneratedResponse {
  readonly method: 'GET' | 'HEAD';
  readonly bytes: string;
  readonly features: ReadonlySet<Feature>;
}

type Feature =
  | 'te-not-chunked'
  | 'head-over-16k-counted-whole'
  | 'te-chunked-twice'
  | 'ctl-in-reason'
  | 'too-many-fields'
  | 'bare-lf-lines'
  | 'chunk-size-leading-zeros'
  | 'extra-bytes'
  | 'duplicate-content-length'
  | 'invalid-content-length'
  | 'invalid-chunk-size'
  | 'both-framings';

/** Response-side smuggling and queue poisoning: ours must refuse every response carrying one. */
const MUST_REFUSE: ReadonlySet<Feature> = new Set<Feature>(['extra-bytes', 'bare-lf-lines', 'duplicate-content-length', 'invalid-content-length', 'invalid-chunk-size', 'both-framings']);

/**
 * Where ours refuses a response node's parser accepts, and why a proxy must. A case carrying one
 * of these features may be refused by ours whatever node says; every other case must agree.
 */
const STRICTER: Partial<Readonly<Record<Feature, string>>> = {
  'te-not-chunked':
    'a Transfer-Encoding that does not end in chunked (gzip, identity): node reads the body until close and hands the ' +
    'still transfer-coded bytes on; a proxy that strips Transfer-Encoding (hop-by-hop) would pass a body its client cannot decode',
  'head-over-16k-counted-whole':
    'a head over 16 KiB counted whole: ours counts every byte of the head (CRLFs and colons too) against the 16 KiB limit, ' +
    'node only the start line, field names and values, so a head of many short fields can pass node\'s count and not ours',
  'te-chunked-twice':
    'chunked applied twice (RFC 9112 6.1: a sender must not): node decodes one layer and would hand on bytes that are still ' +
    'chunked as the body; ours refuses the framing it cannot decode',
  'ctl-in-reason':
    'a control character in the reason phrase (RFC 9112 4 allows HTAB, SP, VCHAR and obs-text only): node keeps it in ' +
    'statusMessage; ours refuses a status line that is not well-formed',
  'too-many-fields':
    'more than 1,000 header fields: node keeps about the first 1,000 and drops the rest silently (a Content-Length after ' +
    'them included), so the gateway would forward a message other than the one the upstream sent; ours refuses it',
  'extra-bytes':
    'a second complete response in the same read as the first: node delivers the first and then destroys the socket; ours ' +
    'refuses the exchange, as node does for any other bytes after a response, so the gateway answers 502 instead of ' +
    'forwarding a response from an upstream that answered one request twice',
  'chunk-size-leading-zeros':
    'a chunk size of more than 16 hex digits (leading zeros): ours bounds the size line before reading its value',
};

/** The detail of our refusal for each listed feature (UpstreamClientError messages of response-parser.ts). */
const REFUSAL: Partial<Readonly<Record<Feature, string>>> = {
  'te-not-chunked': 'Transfer-Encoding does not end in chunked',
  'te-chunked-twice': 'invalid Transfer-Encoding',
  'head-over-16k-counted-whole': 'response head larger than the limit',
  'ctl-in-reason': 'invalid status line',
  'too-many-fields': 'header fields',
  'chunk-size-leading-zeros': 'invalid chunk size line',
  'extra-bytes': 'bytes after the end of the response',
};

/** A node http.request verdict, or ours, in one comparable shape. */
type Verdict =
  | { ok: true; statusCode: number; statusMessage: string; rawHeaders: string[]; body: string; trailers: string[] }
  | { ok: false; reason: string };

const token = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,11}$/);
const plainValue = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,20}[\x21-\x7e])?$/);
const latin1Body = fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('latin1'));

/** Ordinary fields, some with odd but valid spacing and obs-text. */
const validField = fc.oneof(
  fc.tuple(token, plainValue).map(([n, v]) => `X-${n}: ${v}`),
  fc.tuple(token, plainValue).map(([n, v]) => `x-${n}:${v}`),
  fc.tuple(token, plainValue).map(([n, v]) => `X-${n}: \t${v}`),
  fc.constantFrom('Content-Type: application/json', 'Set-Cookie: a=1', 'Set-Cookie: b=2', 'X-Empty:', 'X-Obs: caf\xe9', 'Cache-Control: max-age=60', 'Connection: keep-alive'),
);

/** Fields node must refuse too: each is a smuggling or injection vector. */
const hostileField = fc.constantFrom(
  'Bad Header: x', 'X-Space : x', 'X-Nul: a\x00b', 'NoColon', ': novalue', ' Folded: x', 'X-Ctl: \x01', 'X-Del: a\x7fb',
  'X-CR: a\rb', 'X(paren): x', 'X-Bare-CR\r: x',
);

const validStatusLines = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('HTTP/1.1 200 OK', 'HTTP/1.1 201 Created', 'HTTP/1.1 404 Not Found', 'HTTP/1.1 502 Bad', 'HTTP/1.1 599 Custom', 'HTTP/1.1 200', 'HTTP/1.1 200 ', 'HTTP/1.0 200 OK', 'HTTP/1.1 302 Found', 'HTTP/1.1 200 caf\xe9') },
  { weight: 1, arbitrary: fc.constantFrom('HTTP/1.1 204 No Content', 'HTTP/1.1 304 Not Modified') },
);
const invalidStatusLines = fc.constantFrom('HTTP/1.1 abc OK', 'HTTP/1.1 99 Low', 'HTTP/1.1 1000 High', 'FOO 200 OK', 'HTTP/1.1200 OK', 'HTTP/2 200 OK', 'HTTP/1.1  200 OK', 'http/1.1 200 OK', 'HTTP/1.1 2OO OK', 'HTTP/1.1 200 O\x01K');

type Framing = 'length' | 'length-long' | 'length-short' | 'length-duplicate-same' | 'length-duplicate-differs' | 'length-invalid' | 'chunked' | 'chunked-ext' | 'chunked-trailers' | 'chunked-bad-size' | 'chunked-leading-zeros' | 'chunked-missing-crlf' | 'chunked-unterminated' | 'both' | 'te-gzip' | 'te-gzip-chunked' | 'te-chunked-twice' | 'until-close';
const validFramings = fc.constantFrom<Framing>('length', 'length', 'chunked', 'chunked-ext', 'chunked-trailers', 'until-close');
const invalidFramings = fc.constantFrom<Framing>(
  'length-long', 'length-short', 'length-duplicate-same', 'length-duplicate-differs', 'length-invalid', 'chunked-bad-size', 'chunked-leading-zeros',
  'chunked-missing-crlf', 'chunked-unterminated', 'both', 'te-gzip', 'te-gzip-chunked', 'te-chunked-twice',
);

/** One hostile part per response at most, so that about half the responses are valid and compared field by field. */
type Hostility = 'none' | 'status' | 'field' | 'flood' | 'huge' | 'framing' | 'extra' | 'bare-lf';
const hostilities = fc.constantFrom<Hostility>('none', 'none', 'none', 'none', 'none', 'none', 'status', 'field', 'flood', 'huge', 'framing', 'framing', 'framing', 'extra', 'bare-lf');

const invalidLengths = fc.constantFrom('+5', '5 5', '0x5', '-1', '', '5,5', '1e2', 'abc', '99999999999999999999');
const invalidChunkSizes = fc.constantFrom('zz', '-1', '0x5', ' 5', '+5', '5;', '5; =x', '5;a="unterminated', 'ffffffffffffffffff', '');

function chunkedBody(body: string, cuts: number[], ext = ''): string {
  let out = '';
  let at = 0;
  for (const cut of [...cuts, body.length]) {
    const end = Math.min(body.length, Math.max(at, cut));
    if (end > at) out += `${(end - at).toString(16)}${ext}${CRLF}${body.slice(at, end)}${CRLF}`;
    at = end;
  }
  return out;
}

const responses: fc.Arbitrary<GeneratedResponse> = fc
  .record({
    method: fc.constantFrom<'GET' | 'HEAD'>('GET', 'GET', 'GET', 'HEAD'),
    interim: fc.array(fc.constantFrom(`HTTP/1.1 100 Continue${CRLF}${CRLF}`, `HTTP/1.1 103 Early Hints${CRLF}Link: </a.css>; rel=preload${CRLF}${CRLF}`, `HTTP/1.1 102 Processing${CRLF}${CRLF}`), { maxLength: 2 }),
    hostility: hostilities,
    validStatus: validStatusLines,
    invalidStatus: invalidStatusLines,
    fields: fc.array(validField, { maxLength: 6 }),
    hostileField,
    flood: fc.constantFrom(50, 500, 1500, 3000),
    huge: fc.constantFrom(1000, 30_000, 70_000),
    validFraming: validFramings,
    invalidFraming: invalidFramings,
    body: latin1Body,
    cuts: fc.array(fc.nat({ max: 300 }), { maxLength: 4 }),
    badLength: invalidLengths,
    badChunk: invalidChunkSizes,
    extra: fc.constantFrom('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi', 'x', '\r\n'),
    connection: fc.option(fc.constantFrom('Connection: close', 'Connection: keep-alive', 'Keep-Alive: timeout=5'), { freq: 4 }),
  })
  .map((r) => {
    const features = new Set<Feature>();
    const fields = [...r.fields];
    const status = r.hostility === 'status' ? r.invalidStatus : r.validStatus;
    const framing = r.hostility === 'framing' ? r.invalidFraming : r.validFraming;
    if (r.connection !== null) fields.push(r.connection);
    if (r.hostility === 'field') fields.splice(Math.min(1, fields.length), 0, r.hostileField);
    if (r.hostility === 'flood') {
      // Short fields so that the count, not the head size, is what differs (1,500 of them stay under 16 KiB).
      for (let i = 0; i < r.flood; i += 1) fields.push(`F${i}:`);
      if (r.flood > 1000) features.add('too-many-fields');
    }
    if (r.hostility === 'huge') fields.push(`X-Huge: ${'h'.repeat(r.huge)}`);
    let payload = r.body;
    switch (framing) {
      case 'length':
        fields.push(`Content-Length: ${r.body.length}`);
        break;
      case 'length-long':
        fields.push(`Content-Length: ${r.body.length + 10}`);
        break;
      case 'length-short':
        fields.push(`Content-Length: ${Math.max(0, r.body.length - 3)}`);
        break;
      case 'length-duplicate-same':
        fields.push(`Content-Length: ${r.body.length}`, `Content-Length: ${r.body.length}`);
        features.add('duplicate-content-length');
        break;
      case 'length-duplicate-differs':
        fields.push(`Content-Length: ${r.body.length}`, `Content-Length: ${r.body.length + 1}`);
        features.add('duplicate-content-length');
        break;
      case 'length-invalid':
        fields.push(`Content-Length: ${r.badLength}`);
        features.add('invalid-content-length');
        break;
      case 'chunked':
        fields.push('Transfer-Encoding: chunked');
        payload = `${chunkedBody(r.body, r.cuts)}0${CRLF}${CRLF}`;
        break;
      case 'chunked-ext':
        fields.push('Transfer-Encoding: chunked');
        payload = `${chunkedBody(r.body, r.cuts, ';name=value;q="a b"')}0;last${CRLF}${CRLF}`;
        break;
      case 'chunked-trailers':
        fields.push('Transfer-Encoding: chunked', 'Trailer: X-Sum');
        payload = `${chunkedBody(r.body, r.cuts)}0${CRLF}X-Sum: 1${CRLF}X-Other:two${CRLF}${CRLF}`;
        break;
      case 'chunked-bad-size':
        fields.push('Transfer-Encoding: chunked');
        payload = `${r.badChunk}${CRLF}${r.body}${CRLF}0${CRLF}${CRLF}`;
        features.add('invalid-chunk-size');
        break;
      case 'chunked-leading-zeros':
        fields.push('Transfer-Encoding: chunked');
        payload = `${'0'.repeat(20)}${r.body.length.toString(16)}${CRLF}${r.body}${CRLF}0${CRLF}${CRLF}`;
        if (r.body.length > 0) features.add('chunk-size-leading-zeros');
        break;
      case 'chunked-missing-crlf':
        fields.push('Transfer-Encoding: chunked');
        payload = `${(r.body.length + 1).toString(16)}${CRLF}${r.body}x0${CRLF}${CRLF}`;
        break;
      case 'chunked-unterminated':
        fields.push('Transfer-Encoding: chunked');
        payload = chunkedBody(r.body, r.cuts);
        break;
      case 'both':
        fields.push(`Content-Length: ${r.body.length}`, 'Transfer-Encoding: chunked');
        features.add('both-framings');
        payload = `${chunkedBody(r.body, r.cuts)}0${CRLF}${CRLF}`;
        break;
      case 'te-gzip':
        fields.push('Transfer-Encoding: gzip');
        features.add('te-not-chunked');
        break;
      case 'te-gzip-chunked':
        fields.push('Transfer-Encoding: gzip, chunked');
        payload = `${chunkedBody(r.body, r.cuts)}0${CRLF}${CRLF}`;
        break;
      case 'te-chunked-twice':
        fields.push('Transfer-Encoding: chunked', 'Transfer-Encoding: chunked');
        features.add('te-chunked-twice');
        payload = `${chunkedBody(r.body, r.cuts)}0${CRLF}${CRLF}`;
        break;
      case 'until-close':
        break;
    }
    // A HEAD, 204 or 304 response ends with its head: a payload after it is the 'extra' case only.
    if (r.method === 'HEAD' || / 204 | 304 /.test(status)) {
      payload = '';
      features.delete('invalid-chunk-size');
      features.delete('chunk-size-leading-zeros');
    }
    if (status.includes('\x01')) features.add('ctl-in-reason');
    const extra = r.hostility === 'extra' ? r.extra : '';
    // Read until close, the extra bytes are the body's last bytes, not extra.
    if (extra !== '' && (framing !== 'until-close' || r.method === 'HEAD' || / 204 | 304 /.test(status))) features.add('extra-bytes');
    let head = `${status}${CRLF}${fields.map((f) => f + CRLF).join('')}${CRLF}`;
    if (head.length > 16 * 1024) features.add('head-over-16k-counted-whole');
    if (r.hostility === 'bare-lf') {
      head = head.replaceAll(CRLF, '\n');
      features.add('bare-lf-lines');
    }
    const bytes = r.interim.join('') + head + payload + extra;
    return { method: r.method, bytes, features, [fc.toStringMethod]: () => `${r.method} ${JSON.stringify(bytes.length > 600 ? `${bytes.slice(0, 300)}...${bytes.slice(-300)}` : bytes)} ${JSON.stringify([...features])}` };
  });

// --- node's verdict: a raw server answers exactly the generated bytes, then closes -----------------

let server: net.Server;
let port = 0;
const answers = new Map<string, string>();

before(async () => {
  server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    let head = '';
    socket.on('data', (data) => {
      head += data.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const id = /^[A-Z]+ \/case\/(\d+) /.exec(head)?.[1] ?? '';
      socket.end(Buffer.from(answers.get(id) ?? '', 'latin1'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

let nextId = 0;
function nodeVerdict(response: GeneratedResponse): Promise<Verdict> {
  const id = String((nextId += 1));
  answers.set(id, response.bytes);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (verdict: Verdict): void => {
      if (settled) return;
      settled = true;
      answers.delete(id);
      resolve(verdict);
    };
    const req = http.request({ host: '127.0.0.1', port, path: `/case/${id}`, method: response.method, agent: false, insecureHTTPParser: false });
    req.on('error', (error) => settle({ ok: false, reason: `node: ${error.message}` }));
    req.on('close', () => settle({ ok: false, reason: 'node: closed without a response' }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => settle({ ok: false, reason: `node response: ${error.message}` }));
      res.on('close', () => {
        if (!res.complete) settle({ ok: false, reason: 'node: response incomplete' });
      });
      res.on('end', () => {
        if (!res.complete) return settle({ ok: false, reason: 'node: response incomplete' });
        settle({
          ok: true,
          statusCode: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? '',
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks).toString('latin1'),
          trailers: res.rawTrailers,
        });
      });
    });
    req.end();
  });
}

/** Ours: the same bytes in pieces cut at `cuts` (byte by byte when there are none), then the close. */
function ourVerdict(response: GeneratedResponse, cuts: number[]): Verdict {
  let head: ResponseHead | undefined;
  const body: Buffer[] = [];
  let trailers: string[] | undefined;
  const sink: ResponseSink = {
    onResponseHead: (h) => (head = h),
    onResponseBody: (chunk) => body.push(Buffer.from(chunk)),
    onResponseEnd: (t) => (trailers = t),
  };
  const parser = new ResponseParser(sink);
  parser.start(response.method === 'HEAD');
  const bytes = Buffer.from(response.bytes, 'latin1');
  // An empty cut list on a short message: one byte per read, the slowest upstream there is.
  const points =
    cuts.length === 0 && bytes.length < 4096
      ? Array.from({ length: bytes.length }, (_, i) => i)
      : [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let at = 0;
  for (const end of [...points, bytes.length]) {
    if (end <= at) continue;
    const error = parser.execute(bytes.subarray(at, end));
    if (error !== undefined) return { ok: false, reason: `ours: ${error.message}` };
    at = end;
  }
  const error = parser.finish();
  if (error !== undefined) return { ok: false, reason: `ours: ${error.message}` };
  if (head === undefined || trailers === undefined) return { ok: false, reason: 'ours: no complete response' };
  return {
    ok: true,
    statusCode: head.statusCode,
    statusMessage: head.statusMessage,
    rawHeaders: head.rawHeaders,
    body: Buffer.concat(body).toString('latin1'),
    trailers,
  };
}

const shown = (response: GeneratedResponse): string => JSON.stringify(response.bytes.length > 400 ? `${response.bytes.slice(0, 200)}...${response.bytes.slice(-200)}` : response.bytes);

const runs = Number(process.env.FUZZ_RUNS ?? 400);
const tally = { 'ours accepts, node accepts': 0, 'ours refuses, node refuses': 0, 'ours refuses, node accepts': 0, 'ours accepts, node refuses': 0 };
const stricterSeen = new Set<Feature>();

test('our response parser reaches node\'s verdict and message on generated responses, stricter only where listed', { timeout: 240_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(responses, fc.array(fc.nat(), { maxLength: 6 }), async (response, cuts) => {
      const theirs = await nodeVerdict(response);
      const ours = ourVerdict(response, cuts);
      // A listed feature excuses only its own refusal, not an unrelated one in the same response.
      const allowedStricter = [...response.features].filter((f) => STRICTER[f] !== undefined && !ours.ok && ours.reason.includes(REFUSAL[f] as string));
      tally[`${ours.ok ? 'ours accepts' : 'ours refuses'}, node ${theirs.ok ? 'accepts' : 'refuses'}`] += 1;
      if (!ours.ok && theirs.ok) {
        assert.ok(allowedStricter.length > 0, `ours refused what node accepted (${ours.reason}): ${shown(response)}`);
        for (const feature of allowedStricter) stricterSeen.add(feature);
        return;
      }
      assert.equal(ours.ok, theirs.ok, `verdicts differ: ours ${JSON.stringify(ours).slice(0, 300)} node ${JSON.stringify(theirs).slice(0, 300)} for ${shown(response)}`);
      if (ours.ok) assert.deepEqual(ours, theirs, `messages differ for ${shown(response)}`);
      // Every smuggling and queue-poisoning shape is refused by ours, whatever node says.
      for (const feature of response.features) if (MUST_REFUSE.has(feature)) assert.equal(ours.ok, false, `ours accepted a response with ${feature}`);
    }),
    { numRuns: runs, includeErrorInReport: true, seed: process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED) },
  );
  if (process.env.FUZZ_TALLY === '1') console.log(tally, [...stricterSeen]);
  // The generator must exercise both sides: messages compared field by field, and refusals.
  assert.ok(tally['ours accepts, node accepts'] >= runs / 5, `too few accepted responses: ${JSON.stringify(tally)}`);
  assert.ok(tally['ours refuses, node refuses'] >= runs / 5, `too few refused responses: ${JSON.stringify(tally)}`);
});
