import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OutgoingHttpHeaders } from 'node:http';
import { copyEndToEndHeaders, endToEndHeadersOf } from './hop-by-hop';
import { headersOf } from './raw-headers';

test('drops RFC 9110 hop-by-hop headers and keeps end-to-end ones', () => {
  const out: OutgoingHttpHeaders = {};
  copyEndToEndHeaders(
    {
      connection: 'keep-alive',
      'keep-alive': 'timeout=5',
      'proxy-connection': 'keep-alive',
      te: 'trailers',
      trailer: 'x',
      'transfer-encoding': 'chunked',
      upgrade: 'websocket',
      'proxy-authorization': 'Basic x',
      'content-type': 'text/plain',
      'set-cookie': ['a=1', 'b=2'],
    },
    out,
  );
  assert.deepEqual(out, { 'content-type': 'text/plain', 'set-cookie': ['a=1', 'b=2'] });
});

test('drops the headers that Connection lists, in any case and spacing', () => {
  const out: OutgoingHttpHeaders = {};
  copyEndToEndHeaders({ connection: 'close, X-Secret ,x-other', 'x-secret': 's', 'x-other': 'o', 'x-kept': 'k' }, out);
  assert.deepEqual(out, { 'x-kept': 'k' });
  const single: OutgoingHttpHeaders = {};
  copyEndToEndHeaders({ connection: 'x-only', 'x-only': '1', accept: '*/*' }, single);
  assert.deepEqual(single, { accept: '*/*' });
});

test('endToEndHeadersOf builds in one pass the map copyEndToEndHeaders makes of headersOf (same keys, values and order)', () => {
  const cases: string[][] = [
    ['Content-Type', 'text/plain', 'Content-Length', '2', 'Date', 'x', 'Connection', 'keep-alive', 'Keep-Alive', 'timeout=5'],
    ['Connection', 'X-Secret', 'connection', ' x-other , close', 'X-Secret', 's', 'x-other', 'o', 'X-Kept', 'k'],
    ['Set-Cookie', 'a=1', 'set-cookie', 'b=2', 'Cookie', 'c=1', 'cookie', 'd=2', 'Vary', 'Origin', 'vary', 'Accept'],
    ['Content-Length', '2', 'content-length', '3', 'Transfer-Encoding', 'chunked', 'TE', 'trailers', 'Upgrade', 'h2c', 'Trailer', 'x', 'Proxy-Authenticate', 'Basic'],
    ['Connection', 'upgrade', 'Upgrade', 'websocket', 'Sec-WebSocket-Accept', 'abc'],
    [],
  ];
  for (const raw of cases) {
    const copied: OutgoingHttpHeaders = {};
    copyEndToEndHeaders(headersOf(raw), copied);
    const built = endToEndHeadersOf(raw);
    assert.deepEqual(built, copied, JSON.stringify(raw));
    assert.deepEqual(Object.keys(built), Object.keys(copied), JSON.stringify(raw));
  }
  assert.deepEqual(endToEndHeadersOf(cases[1] as string[]), { 'x-kept': 'k' });
});
