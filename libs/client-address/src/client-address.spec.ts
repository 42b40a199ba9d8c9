import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileClientAddress } from './client-address';

test('without trusted proxies the socket peer is the client, whatever X-Forwarded-For says', () => {
  const address = compileClientAddress([]);
  assert.equal(address('203.0.113.9', '1.1.1.1'), '203.0.113.9');
});

test('a trusted peer: the right-most untrusted X-Forwarded-For entry; spoofed entries to its left are ignored', () => {
  const address = compileClientAddress(['10.0.0.0/8', '192.168.1.5', '::1']);
  assert.equal(address('10.1.2.3', '203.0.113.7'), '203.0.113.7');
  assert.equal(address('10.1.2.3', '6.6.6.6, 203.0.113.7'), '203.0.113.7', 'client-written 6.6.6.6 ignored');
  assert.equal(address('10.1.2.3', '6.6.6.6, 203.0.113.7, 10.9.9.9, 192.168.1.5'), '203.0.113.7', 'trusted hops skipped');
  assert.equal(address('::1', '203.0.113.8:4711'), '203.0.113.8');
  assert.equal(address('10.1.2.3', undefined), '10.1.2.3', 'no header: the peer');
  assert.equal(address('10.1.2.3', 'garbage'), '10.1.2.3', 'unparsable: the peer');
  assert.equal(address('10.1.2.3', '10.0.0.1'), '10.1.2.3', 'only trusted hops: the peer');
});

test('an untrusted peer never gets its X-Forwarded-For believed', () => {
  const address = compileClientAddress(['10.0.0.0/8']);
  assert.equal(address('203.0.113.50', '10.0.0.1, 1.2.3.4'), '203.0.113.50');
});

test('repeated X-Forwarded-For headers are read as one list, in order', () => {
  const address = compileClientAddress(['10.0.0.0/8']);
  assert.equal(address('10.1.2.3', ['6.6.6.6', '203.0.113.7, 10.0.0.9']), '203.0.113.7');
});
