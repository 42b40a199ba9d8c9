import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OutgoingHttpHeaders } from 'node:http';
import { copyEndToEndHeaders } from './hop-by-hop';

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
