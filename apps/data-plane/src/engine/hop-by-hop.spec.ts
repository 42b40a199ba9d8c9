import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OutgoingHttpHeaders } from 'node:http';
import { connectionValue, copyEndToEndHeaders, endToEndHeadersOf, isHopByHopName } from './hop-by-hop';
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

const HOP_BY_HOP_NAMES = ['connection', 'proxy-connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authenticate', 'proxy-authorization'];

test('isHopByHopName knows the hop-by-hop names in any case, and no other token of their lengths', () => {
  for (const name of HOP_BY_HOP_NAMES) {
    for (const spelled of [name, name.toUpperCase(), name.replace(/(^|-)[a-z]/g, (s) => s.toUpperCase())]) assert.equal(isHopByHopName(spelled), true, spelled);
    // Every one-character change of the name (to any token character) is another name.
    for (let i = 0; i < name.length; i += 1) {
      for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
        const other = name.slice(0, i) + c + name.slice(i + 1);
        assert.equal(isHopByHopName(other), HOP_BY_HOP_NAMES.includes(other.toLowerCase()), other);
      }
    }
  }
  for (const name of ['Content-Type', 'Date', 'X-Upgrade', 'Connections', 'keep-alive2', 't', '']) assert.equal(isHopByHopName(name), false, name);
});

test('connectionValue joins every Connection field whatever its case, and only those', () => {
  assert.equal(connectionValue(['Content-Type', 'text/plain', 'Keep-Alive', 'timeout=5']), undefined);
  assert.equal(connectionValue(['CONNECTION', 'close', 'Date', 'x', 'connection', 'X-A']), 'close, X-A');
  assert.equal(connectionValue(['Connectiom', 'close', 'Connection2', 'close']), undefined);
});
