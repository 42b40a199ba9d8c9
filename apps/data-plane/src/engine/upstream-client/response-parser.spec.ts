import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseParser, type ResponseHead, type ResponseParserLimits } from './response-parser';
import type { UpstreamClientError } from './upstream-client-error';

/*
 * The head's fields are read two ways (response-parser.ts): a well-formed field section is checked
 * by one regular expression and split by indexOf; any other goes to the scan by character, which
 * names what is wrong. Both must give the same raw list, and the count limit must win over a bad
 * line the same way whichever reads it. The differential suite compares whole responses with
 * node's parser; these cases pin the edges of the split.
 */

function parse(head: string, limits?: ResponseParserLimits): { head: ResponseHead | undefined; error: UpstreamClientError | undefined } {
  let got: ResponseHead | undefined;
  const parser = new ResponseParser({ onResponseHead: (h) => (got = h), onResponseBody: () => undefined, onResponseEnd: () => undefined }, limits);
  parser.start(false);
  const error = parser.execute(Buffer.from(`${head}\r\n\r\n`, 'latin1'));
  return { head: got, error };
}

test('a well-formed field section keeps names as sent and values without their optional whitespace', () => {
  const { head, error } = parse(
    'HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Tabs:\t a b \t\r\nEmpty:\r\nOnly-Space:   \r\nColon: a:b: c\r\nObs-Text: caf\xe9\r\nset-cookie: a=1',
  );
  assert.equal(error, undefined);
  assert.deepEqual(head?.rawHeaders, [
    'Content-Length', '0',
    'X-Tabs', 'a b',
    'Empty', '',
    'Only-Space', '',
    'Colon', 'a:b: c',
    'Obs-Text', 'caf\xe9',
    'set-cookie', 'a=1',
  ]);
});

test('a section with a bad line is refused with the scan message, the lines before it read the same', () => {
  assert.match(parse('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nBad Name: x').error?.message ?? '', /invalid header field name/);
  assert.match(parse('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n folded').error?.message ?? '', /obsolete line folding/);
  assert.match(parse('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX: a\x01b').error?.message ?? '', /invalid character in header field X/);
  assert.match(parse('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX: a\rb').error?.message ?? '', /invalid character in header field X/);
  assert.match(parse('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nno colon').error?.message ?? '', /without a field name and colon/);
});

test('more fields than the limit are refused whether the section is well formed or has a bad line', () => {
  const limits = { maxHeaderSize: 16 * 1024, maxHeaderCount: 3 };
  assert.equal(parse('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nB: 2\r\nC: 3', limits).error, undefined);
  assert.match(parse('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nB: 2\r\nC: 3\r\nD: 4', limits).error?.message ?? '', /more than 3 header fields/);
  // A bad line among too many fields: the count is reported, as the scan always did.
  assert.match(parse('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nB 2\r\nC: 3\r\nD: 4', limits).error?.message ?? '', /more than 3 header fields/);
  assert.match(parse('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nB: 2\r\nC: 3\r\nD 4', limits).error?.message ?? '', /more than 3 header fields/);
});
