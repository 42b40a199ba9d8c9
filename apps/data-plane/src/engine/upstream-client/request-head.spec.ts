import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serializeRequestHead } from './request-head';
import { UpstreamClientError } from './upstream-client-error';

test('the head is the request line, one CRLF-ended line a field, the framing and a blank line', () => {
  const id = `req-${Date.now()}-${'ab'.repeat(8)}`;
  const head = serializeRequestHead(
    { method: 'POST', path: '/a?b=1', headers: ['x-correlation-id', id, 'x-request-id', id, 'Accept', '*/*'], body: Buffer.from('hi') },
    'up.example:8080',
  );
  assert.equal(
    head,
    `POST /a?b=1 HTTP/1.1\r\nx-correlation-id: ${id}\r\nx-request-id: ${id}\r\nAccept: */*\r\nhost: up.example:8080\r\ncontent-length: 2\r\n\r\n`,
  );
  assert.equal(serializeRequestHead({ method: 'GET', path: '/', headers: [] }, 'h'), 'GET / HTTP/1.1\r\nhost: h\r\n\r\n');
});

test('a value is refused wherever it stands, also right after a clean value (the repeat is skipped only when equal)', () => {
  const bad = ['v\r\nx-injected: 1', 'v\n', 'v\0', 'caf\u0100'];
  for (const value of bad) {
    for (const headers of [
      ['x-a', value],
      ['x-a', 'v', 'x-b', value],
      ['x-a', 'v', 'x-b', 'v', 'x-c', value],
      ['x-a', value, 'x-b', value],
    ]) {
      const head = serializeRequestHead({ method: 'GET', path: '/', headers }, 'h');
      assert.ok(head instanceof UpstreamClientError, JSON.stringify(headers));
      assert.match(head.message, /invalid character in header x-/);
    }
  }
});
