import fc from 'fast-check';

/*
 * Arbitraries for what a client can put on one keep-alive connection: well-formed requests to
 * every kind of route, and every framing and syntax mistake an HTTP/1.1 parser has to survive
 * (RFC 9112 6.1-6.3: Content-Length and chunked framing, both at once, bad chunks; oversized heads;
 * garbage). Everything is bytes, so the gateway sees exactly what was generated.
 */

export interface RequestShape {
  /** The paths of the gateway under test that answer 200 with a real upstream behind them. */
  readonly servedPaths: readonly string[];
  /** The gateway's maxHeaderSize: oversized heads are generated just above and well above it. */
  readonly maxHeaderSize: number;
  /** The gateway's maxBodySize: bodies are generated on both sides of it. */
  readonly maxBodySize: number;
}

/** One write's worth of bytes, split at `cuts` into fragments sent `gapMs` apart. */
export interface ClientStep {
  readonly label: string;
  /** The bytes as latin1 text (one char per byte), so a printed counterexample stays readable. */
  readonly bytes: string;
  readonly cuts: readonly number[];
  readonly gapMs: number;
  /** Wait for the gateway's answer before the next step (a later head then meets a finished response). */
  readonly awaitReply: boolean;
}

/**
 * How the client leaves: half-close and wait for the gateway to close, an abrupt end, stop halfway
 * through the last step and wait for the gateway's header or request timeout (stall), or (for a
 * request sent with `Connection: close`) wait for the gateway to close without closing first.
 */
export type ClientEnding = 'half-close' | 'reset' | 'destroy' | 'truncate-last' | 'stall' | 'await-close';

export interface ClientSequence {
  readonly steps: readonly ClientStep[];
  readonly ending: ClientEnding;
}

const CRLF = '\r\n';

const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,12}$/);
const printable = fc.stringMatching(/^[\x20-\x7e]{0,40}$/);
/** Header values a parser must refuse or cope with: controls, NUL, obs-text, bare CR/LF. */
const hostileValue = fc.oneof(
  printable,
  fc.constantFrom('\x00', 'a\rb', 'a\nb', '\x7f', '\xff\xfe', ' leading', 'trailing ', '\t', '=?utf-8?q?x?='),
);

const methods = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'get', 'PRI', 'M-SEARCH', 'BREW');
const versions = fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.2', 'HTTP/0.9', 'http/1.1', 'HTTP/1.1 ');

function pathArbitrary(shape: RequestShape): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...shape.servedPaths) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '/', '/missing', '/health', '/metrics', '/echo/../echo/x', '/echo/%2e%2e/x', '/echo/..%2fx', '/echo/a?q=%ff&x',
        '/echo/a#frag', '*', 'http://gw/echo/abs', 'http://elsewhere/echo/abs', '//echo//a', '/echo/%00', '/echo/\\..\\x', '/echo/' + 'a'.repeat(3000),
      ),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...shape.servedPaths), printable).map(([p, tail]) => p + tail.replace(/ /g, '%20')) },
  );
}

const commonHeaders = fc.constantFrom(
  ['Connection', 'keep-alive'], ['Connection', 'close'], ['Connection', 'Upgrade'], ['Upgrade', 'websocket'], ['Expect', '100-continue'],
  ['Expect', 'teapot'], ['Accept-Encoding', 'gzip'], ['Authorization', 'Bearer x.y.z'], ['Cookie', 'a=b; c=d'], ['X-Forwarded-For', '10.0.0.1'],
  ['Content-Type', 'application/json'], ['TE', 'trailers'], ['Trailer', 'X-T'], ['Proxy-Connection', 'keep-alive'], ['Keep-Alive', 'timeout=1'],
  ['Host', 'second.example'], ['X-Correlation-ID', 'fuzz'], ['Range', 'bytes=0-1'], ['If-None-Match', '*'], ['Cache-Control', 'no-cache'],
);

const headerLine = fc.oneof(
  { weight: 4, arbitrary: commonHeaders.map(([name, value]) => `${name}: ${value}`) },
  { weight: 3, arbitrary: fc.tuple(token, hostileValue).map(([name, value]) => `X-${name}: ${value}`) },
  {
    weight: 1,
    // Malformed field lines: no colon, space before colon, obs-fold, an empty name.
    arbitrary: fc.constantFrom('NoColonHere', 'X-Space : v', ' folded-continuation', 'X-Fold: a\r\n b', ': empty-name', 'X\x00Nul: v', 'Content-Length : 5'),
  },
);

const base64url = (text: string): string => Buffer.from(text, 'latin1').toString('base64url');

/** JWT-shaped tokens with hostile headers and claims (alg none, crit, huge or mistyped exp, non-JSON parts). */
const jwtLike = fc
  .tuple(
    fc.oneof(
      fc.constantFrom('{"alg":"HS256","typ":"JWT"}', '{"alg":"none"}', '{"alg":"RS256"}', '{"alg":"HS256","crit":["b64"]}', '{"alg":"HS256","kid":"../../x"}', '{"alg":["HS256"]}', 'not json', '{"alg":"HS256","jku":"http://169.254.169.254/"}'),
      fc.json({ maxDepth: 2 }),
    ),
    fc.oneof(fc.constantFrom('{"exp":1e400,"sub":"a"}', '{"exp":"soon","sub":{"a":1}}', '{"sub":null,"iss":123,"nbf":-1}', '{"sub":"alice","exp":9999999999}'), fc.json({ maxDepth: 3 })),
    fc.string({ maxLength: 40 }),
  )
  .map(([header, payload, signature]) => `Authorization: Bearer ${base64url(header)}.${base64url(payload)}.${base64url(signature)}`);

/** Credentials the auth policy must refuse without failing: malformed Basic, Bearer and API keys. */
const credentialHeader = fc.oneof(
  jwtLike,
  fc.string({ maxLength: 40 }).map((pair) => `Authorization: Basic ${Buffer.from(pair, 'latin1').toString('base64')}`),
  fc.string({ maxLength: 40 }).map((key) => `X-API-Key: ${key.replace(/[\r\n]/g, '')}`),
  fc.constantFrom(
    'Authorization: Basic', 'Authorization: Basic !!!', 'Authorization: Basic ====', 'Authorization: basic YWxpY2U6', 'Authorization: Basic YWxpY2U6Y29ycmVjdCBob3JzZQ==',
    'Authorization: Bearer', 'Authorization: Bearer ', 'Authorization: Bearer a.b', 'Authorization: Bearer ..', 'Authorization: Bearer a.b.c.d', 'Authorization: Negotiate abc',
    'X-API-Key:', 'X-API-Key: gw_live_0000', 'Cookie: gateway_session=x; session=..',
  ),
);

type Framing = 'none' | 'length' | 'length-short' | 'length-long' | 'length-invalid' | 'length-duplicate' | 'chunked' | 'chunked-bad' | 'chunked-unterminated' | 'both' | 'te-unknown' | 'te-list';
const framings = fc.constantFrom<Framing>(
  'none', 'none', 'length', 'length', 'chunked', 'chunked', 'length-short', 'length-long', 'length-invalid', 'length-duplicate', 'chunked-bad', 'chunked-unterminated', 'both', 'te-unknown', 'te-list',
);

function chunked(body: Buffer, pieces: number): string {
  const text = body.toString('latin1');
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, pieces)));
  let out = '';
  for (let i = 0; i < text.length; i += size) {
    const piece = text.slice(i, i + size);
    out += `${piece.length.toString(16)}${CRLF}${piece}${CRLF}`;
  }
  return `${out}0${CRLF}${CRLF}`;
}

const badChunks = fc.constantFrom(
  `zz${CRLF}abc${CRLF}0${CRLF}${CRLF}`,
  `5${CRLF}abc${CRLF}0${CRLF}${CRLF}`,
  `3${CRLF}abcdef${CRLF}0${CRLF}${CRLF}`,
  `-1${CRLF}a${CRLF}0${CRLF}${CRLF}`,
  `ffffffffffffffffff${CRLF}a${CRLF}`,
  `3;ext="unterminated${CRLF}abc${CRLF}0${CRLF}${CRLF}`,
  `3\nabc\n0\n\n`,
  `3${CRLF}abc${CRLF}0${CRLF}X-Trailer: ${'t'.repeat(5000)}${CRLF}${CRLF}`,
  `3${CRLF}abc`,
  `0${CRLF}`,
  ` 3${CRLF}abc${CRLF}0${CRLF}${CRLF}`,
);

/** A whole request as a body: what an upstream must never parse as a request of its own. */
const smugglingBodies = fc
  .constantFrom('GET /smuggled HTTP/1.1\r\nHost: upstream\r\n\r\n', 'POST /smuggled HTTP/1.1\r\nHost: upstream\r\nContent-Length: 0\r\n\r\n', 'HEAD /smuggled HTTP/1.0\r\n\r\n')
  .map((text) => new Uint8Array(Buffer.from(text, 'latin1')));

function bodyArbitrary(shape: RequestShape): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.uint8Array({ maxLength: 64 }) },
    { weight: 1, arbitrary: smugglingBodies },
    { weight: 1, arbitrary: fc.integer({ min: shape.maxBodySize - 8, max: shape.maxBodySize * 3 }).map((n) => new Uint8Array(n).fill(0x62)) },
  ).map((bytes) => Buffer.from(bytes));
}

/** Dimensions of a well-formed request: served paths, HTTP/1.1, one Host, valid framing. */
function validDimensions(shape: RequestShape) {
  return {
    method: fc.constantFrom('GET', 'GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'),
    path: fc.constantFrom(...shape.servedPaths),
    version: fc.constant('HTTP/1.1'),
    host: fc.constant('Host: gw'),
    headers: fc.array(
      fc.oneof(
        commonHeaders.filter(([name, value]) => name !== 'Host' && name !== 'Expect' && value !== 'close' && name !== 'Connection').map(([name, value]) => `${name}: ${value}`),
        credentialHeader,
      ),
      { maxLength: 3 },
    ),
    framing: fc.constantFrom<Framing>('none', 'none', 'length', 'chunked'),
    body: fc.oneof({ weight: 4, arbitrary: fc.uint8Array({ maxLength: 64 }) }, { weight: 1, arbitrary: smugglingBodies }).map((bytes) => Buffer.from(bytes)),
    pieces: fc.integer({ min: 1, max: 4 }),
    badChunk: badChunks,
    invalidLength: fc.constant(''),
    lineEnd: fc.constant(CRLF),
  };
}

/** Dimensions where every part may be wrong: framing, headers, version, target. */
function hostileDimensions(shape: RequestShape) {
  return {
    method: methods,
    path: pathArbitrary(shape),
    version: versions,
    host: fc.constantFrom('Host: gw', 'Host: gw', 'Host: gw', '', 'Host: bad host!', 'Host: gw\r\nHost: gw2', 'Host:'),
    headers: fc.array(fc.oneof(headerLine, credentialHeader), { maxLength: 5 }),
    framing: framings,
    body: bodyArbitrary(shape),
    pieces: fc.integer({ min: 1, max: 4 }),
    badChunk: badChunks,
    invalidLength: fc.constantFrom('-1', '1e3', '0x10', ' 12', '99999999999999999999', 'abc', '5, 6', ''),
    lineEnd: fc.constantFrom(CRLF, CRLF, CRLF, CRLF, '\n'),
  };
}

/** A request that the gateway serves (`hostile` false) or one whose parts may all be wrong. */
export function requestArbitrary(shape: RequestShape, hostile: boolean): fc.Arbitrary<{ label: string; text: string }> {
  return fc
    .record(hostile ? hostileDimensions(shape) : validDimensions(shape))
    .map(({ method, path, version, host, headers, framing, body, pieces, badChunk, invalidLength, lineEnd }) => {
      const lines = [`${method} ${path} ${version}`];
      if (host !== '') lines.push(host);
      lines.push(...headers);
      const raw = body.toString('latin1');
      let payload = '';
      switch (framing) {
        case 'none':
          break;
        case 'length':
          lines.push(`Content-Length: ${body.length}`);
          payload = raw;
          break;
        case 'length-short':
          lines.push(`Content-Length: ${Math.max(0, body.length - 3)}`);
          payload = raw;
          break;
        case 'length-long':
          lines.push(`Content-Length: ${body.length + 7}`);
          payload = raw;
          break;
        case 'length-invalid':
          lines.push(`Content-Length: ${invalidLength}`);
          payload = raw;
          break;
        case 'length-duplicate':
          lines.push(`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`);
          payload = raw;
          break;
        case 'chunked':
          lines.push('Transfer-Encoding: chunked');
          payload = chunked(body, pieces);
          break;
        case 'chunked-bad':
          lines.push('Transfer-Encoding: chunked');
          payload = badChunk;
          break;
        case 'chunked-unterminated':
          lines.push('Transfer-Encoding: chunked');
          payload = chunked(body, pieces).slice(0, -5);
          break;
        case 'both':
          lines.push(`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked');
          payload = chunked(body, pieces);
          break;
        case 'te-unknown':
          lines.push('Transfer-Encoding: gzip');
          payload = raw;
          break;
        case 'te-list':
          lines.push('Transfer-Encoding: gzip, chunked');
          payload = chunked(body, pieces);
          break;
      }
      return { label: `${method} ${path.slice(0, 40)} ${version} ${framing}`, text: lines.join(lineEnd) + lineEnd + lineEnd + payload };
    });
}

/** A head just above or far above maxHeaderSize, in one long field or many short ones. */
export function oversizedHeadArbitrary(shape: RequestShape): fc.Arbitrary<{ label: string; text: string }> {
  return fc
    .record({
      path: fc.constantFrom(...shape.servedPaths),
      extra: fc.integer({ min: 1, max: shape.maxHeaderSize * 4 }),
      many: fc.boolean(),
      name: fc.constantFrom('Authorization: Bearer ', 'Cookie: s=', 'X-Big: '),
    })
    .map(({ path, extra, many, name }) => {
      const size = shape.maxHeaderSize + extra;
      const fields = many ? Array.from({ length: Math.ceil(size / 20) }, (_, i) => `X-H${i}: ${'v'.repeat(12)}`).join(CRLF) : name + 'a'.repeat(size);
      return { label: `oversized head (${many ? 'many fields' : name.trim()} ~${size} bytes)`, text: `GET ${path} HTTP/1.1${CRLF}Host: gw${CRLF}${fields}${CRLF}${CRLF}` };
    });
}

const syntaxErrors = fc.constantFrom(
  'GET  /echo/a HTTP/1.1\r\nHost: gw\r\n\r\n',
  'GET /echo/a\r\nHost: gw\r\n\r\n',
  'GET\r\n\r\n',
  ' GET /echo/a HTTP/1.1\r\nHost: gw\r\n\r\n',
  'GET /echo/a HTTP/1.1\rHost: gw\r\r',
  '\r\n\r\nGET /echo/a HTTP/1.1\r\nHost: gw\r\n\r\n',
  'GET /echo/a HTTP/1.1\r\n Host: gw\r\n\r\n',
  'GET /echo/a HTTP/1.1\r\nHost: gw\r\nX: \x01\x02\r\n\r\n',
  'GET /ech\x00o/a HTTP/1.1\r\nHost: gw\r\n\r\n',
  'GET /echo/a HTTP/1.1\r\nHost: gw\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n',
  'POST /echo/a HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nG\r\n0\r\n\r\nGET /echo/smuggled HTTP/1.1\r\nHost: gw\r\n\r\n',
  'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
  '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03',
  'CONNECT gw:443 HTTP/1.1\r\nHost: gw:443\r\n\r\n',
  'GET /echo/a HTTP/1.1\r\nHost: gw\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n\x81\x85garbage',
);

/** One message: mostly requests, plus oversized heads, known syntax errors and random bytes. */
export function messageArbitrary(shape: RequestShape): fc.Arbitrary<{ label: string; text: string }> {
  return fc.oneof(
    { weight: 10, arbitrary: requestArbitrary(shape, false) },
    { weight: 4, arbitrary: requestArbitrary(shape, true) },
    { weight: 2, arbitrary: oversizedHeadArbitrary(shape) },
    { weight: 1, arbitrary: syntaxErrors.map((text) => ({ label: `syntax ${JSON.stringify(text.slice(0, 30))}`, text })) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 512 }).map((bytes) => ({ label: `garbage ${bytes.length} bytes`, text: Buffer.from(bytes).toString('latin1') })) },
  );
}

/** One write: a single message or a pipelined mix, delivered whole or in fragments. */
export function stepArbitrary(shape: RequestShape): fc.Arbitrary<ClientStep> {
  return fc
    .record({
      messages: fc.array(messageArbitrary(shape), { minLength: 1, maxLength: 4 }),
      cutFractions: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 }),
      gapMs: fc.constantFrom(0, 0, 1, 5, 20),
      awaitReply: fc.boolean(),
    })
    .map(({ messages, cutFractions, gapMs, awaitReply }) => {
      const bytes = messages.map((m) => m.text).join('');
      const cuts = [...new Set(cutFractions.map((f) => Math.floor(f * bytes.length)))].filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b);
      return { label: messages.map((m) => m.label).join(' | '), bytes, cuts, gapMs, awaitReply };
    });
}

export function sequenceArbitrary(shape: RequestShape): fc.Arbitrary<ClientSequence> {
  return fc.record({
    steps: fc.array(stepArbitrary(shape), { minLength: 1, maxLength: 5 }),
    ending: fc.oneof(
      { weight: 10, arbitrary: fc.constantFrom<ClientEnding>('half-close', 'half-close', 'reset', 'destroy', 'truncate-last') },
      // Rare: each one waits for a server timeout (1 to 2.5 s with the fuzz gateway's settings).
      { weight: 1, arbitrary: fc.constant<ClientEnding>('stall') },
    ),
  });
}
