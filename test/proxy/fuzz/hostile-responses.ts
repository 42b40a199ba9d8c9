import fc from 'fast-check';
import type { UpstreamScript } from './hostile-upstream';

/*
 * Arbitraries for what an upstream can answer: invalid status lines, header floods and oversized
 * heads, 1xx floods, unsolicited 101, every Content-Length and chunked mistake (RFC 9112 6.3),
 * resets mid-body and bodies that never end. `headFails` marks scripts whose head node's client
 * parser must refuse, or that never send one: the client may then only see a 502 or a 504.
 */

export interface HostileResponse {
  readonly script: UpstreamScript;
  readonly headFails: boolean;
}

const CRLF = '\r\n';

/** Status lines llhttp refuses (a 3-digit code, a known version and SP are required). */
const invalidStatusLines = fc.constantFrom(
  'HTTP/1.1 abc OK', 'HTTP/1.1 99 Low', 'HTTP/1.1 1000 High', 'HTTP/2 200 OK', 'FOO 200 OK', 'HTTP/1.1200 OK',
  '\x00\x01\x02\x03', 'HTTP/9.9 200 OK', 'HTTP/1.1 -200 OK', '<html>not http</html>', 'HTTP/1.1 2OO OK',
);

const validStatuses = fc.constantFrom('200 OK', '200 OK', '200 OK', '201 Created', '204 No Content', '304 Not Modified', '404 Not Found', '302 Found', '418 Teapot', '503 Unavailable', '599 Custom', '200');

const informational = fc.constantFrom(
  `HTTP/1.1 100 Continue${CRLF}${CRLF}`,
  `HTTP/1.1 102 Processing${CRLF}${CRLF}`,
  `HTTP/1.1 103 Early Hints${CRLF}Link: </a.css>; rel=preload${CRLF}${CRLF}`,
);

const bodies = fc.oneof(
  fc.constantFrom('{"secret":"s","kept":1}', '{"a":', '[]', 'null', '{"secret":{"nested":true}}', ''),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
);

/** Header blocks: ordinary, floods of many fields, one huge field, fields node must refuse. */
const headerBlocks = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(['Content-Type: application/json'], ['Content-Type: text/plain', 'Set-Cookie: a=1', 'Set-Cookie: b=2'], ['Cache-Control: max-age=60'], ['Connection: close'], ['Connection: keep-alive, X-Hop', 'X-Hop: 1'], []) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 4000 }).map((n) => Array.from({ length: n }, (_, i) => `X-Flood-${i}: ${i}`)) },
  { weight: 1, arbitrary: fc.integer({ min: 8 * 1024, max: 80 * 1024 }).map((n) => [`X-Huge: ${'h'.repeat(n)}`]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(['Bad Header: x'], ['X-Nul: a\x00b'], ['NoColon'], [' Folded: x'], ['X-A: 1', ' continued'], ['Content-Type: text/plain\nX-Bare-LF: 1'], ['X-Ctl: \x01\x7f']),
  },
);

type Framing = 'length' | 'length-long' | 'length-short' | 'length-duplicate' | 'length-invalid' | 'chunked' | 'chunked-bad' | 'chunked-unterminated' | 'both' | 'until-close' | 'endless';
const framings = fc.constantFrom<Framing>('length', 'length', 'length-long', 'length-short', 'length-duplicate', 'length-invalid', 'chunked', 'chunked', 'chunked-bad', 'chunked-unterminated', 'both', 'until-close', 'endless');

function frame(framing: Framing, body: string): { headers: string[]; payload: string[]; endless: boolean } {
  const chunk = (text: string): string => `${text.length.toString(16)}${CRLF}${text}${CRLF}`;
  switch (framing) {
    case 'length':
      return { headers: [`Content-Length: ${body.length}`], payload: [body], endless: false };
    case 'length-long':
      return { headers: [`Content-Length: ${body.length + 100}`], payload: [body], endless: false };
    case 'length-short':
      return { headers: [`Content-Length: ${Math.max(0, body.length - 5)}`], payload: [body + 'HTTP/1.1 200 OK\r\n\r\nleftover'], endless: false };
    case 'length-duplicate':
      return { headers: [`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`], payload: [body], endless: false };
    case 'length-invalid':
      return { headers: ['Content-Length: -5'], payload: [body], endless: false };
    case 'chunked':
      return { headers: ['Transfer-Encoding: chunked'], payload: [body === '' ? '' : chunk(body), `0${CRLF}${CRLF}`], endless: false };
    case 'chunked-bad':
      return { headers: ['Transfer-Encoding: chunked'], payload: [`zz${CRLF}${body}${CRLF}0${CRLF}${CRLF}`], endless: false };
    case 'chunked-unterminated':
      return { headers: ['Transfer-Encoding: chunked'], payload: [chunk(body || 'x')], endless: false };
    case 'both':
      return { headers: [`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked'], payload: [chunk(body || 'x'), `0${CRLF}${CRLF}`], endless: false };
    case 'until-close':
      return { headers: [], payload: [body], endless: false };
    case 'endless':
      return { headers: ['Transfer-Encoding: chunked'], payload: [chunk('more')], endless: true };
  }
}

/** A response whose status line, head, framing and ending may each be hostile. */
const scriptedResponse: fc.Arbitrary<HostileResponse> = fc
  .record({
    statusValid: fc.boolean(),
    invalidStatus: invalidStatusLines,
    status: validStatuses,
    interim: fc.oneof(fc.constant(0), fc.constant(1), fc.integer({ min: 2, max: 3000 })),
    interimLine: informational,
    headers: headerBlocks,
    framing: framings,
    body: bodies,
    split: fc.boolean(),
    gapMs: fc.constantFrom(0, 0, 5, 30),
    finish: fc.constantFrom<UpstreamScript['finish']>('end', 'end', 'keep', 'keep', 'reset', 'hang'),
  })
  .map(({ statusValid, invalidStatus, status, interim, interimLine, headers, framing, body, split, gapMs, finish }) => {
    const framed = frame(framing, body);
    const head = [statusValid ? `HTTP/1.1 ${status}` : invalidStatus, ...headers, ...framed.headers].join(CRLF) + CRLF + CRLF;
    const payload = framed.payload.join('');
    // Split mid-head or mid-body so the gateway also sees the answer in pieces. A 204 or 304 ends
    // with its head: content sent later would be read as the answer to whatever request the
    // gateway sent next on that connection, a race HTTP/1.1 cannot tell apart (docs/data-plane.md),
    // so such content goes out with the head.
    const bodiless = statusValid && (status.startsWith('204') || status.startsWith('304'));
    const heads = split ? [head.slice(0, head.length >> 1), head.slice(head.length >> 1)] : [head];
    const parts = [interimLine.repeat(interim), ...(bodiless ? [...heads.slice(0, -1), heads[heads.length - 1] + payload] : [...heads, payload])].filter((p) => p !== '');
    return {
      script: {
        label: `${interim} x 1xx, ${statusValid ? status : JSON.stringify(invalidStatus)}, ${headers.length} header(s), ${framing}, ${framed.endless ? 'endless' : finish}`,
        parts,
        gapMs,
        finish: framed.endless ? 'endless' : finish,
      },
      headFails: !statusValid,
    };
  });

/** Answers with no HTTP at all: silence, a reset or a close before any byte, an unsolicited 101, garbage. */
const brokenConnection: fc.Arbitrary<HostileResponse> = fc.oneof(
  fc.constantFrom<UpstreamScript['finish']>('end', 'reset', 'hang').map((finish) => ({ script: { label: `no bytes, ${finish}`, parts: [], gapMs: 0, finish }, headFails: true })),
  fc.constantFrom<UpstreamScript['finish']>('end', 'hang', 'keep').map((finish) => ({
    script: { label: `unsolicited 101, ${finish}`, parts: [`HTTP/1.1 101 Switching Protocols${CRLF}Upgrade: websocket${CRLF}Connection: Upgrade${CRLF}${CRLF}\x81\x05hello`], gapMs: 0, finish },
    headFails: false,
  })),
  fc.uint8Array({ minLength: 1, maxLength: 300 }).map((bytes) => ({
    script: { label: `garbage ${bytes.length} bytes`, parts: [Buffer.from(bytes).toString('latin1')], gapMs: 0, finish: 'end' as const },
    // Random bytes can spell a valid status line only by a miracle; 'H' first keeps that honest.
    headFails: bytes[0] !== 0x48,
  })),
);

export const hostileResponseArbitrary: fc.Arbitrary<HostileResponse> = fc.oneof({ weight: 5, arbitrary: scriptedResponse }, { weight: 1, arbitrary: brokenConnection });
