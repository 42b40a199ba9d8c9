import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Exchange } from '../../engine/exchange';
import { compileClientAddress } from './client-address';

const exchange = (peer: string, xff?: string): Exchange => ({ clientIp: peer, req: { headers: xff === undefined ? {} : { 'x-forwarded-for': xff } } }) as unknown as Exchange;

test('without trusted proxies the socket peer is the client, whatever X-Forwarded-For says', () => {
  const address = compileClientAddress([]);
  assert.equal(address(exchange('203.0.113.9', '1.1.1.1')), '203.0.113.9');
});

test('a trusted peer: the right-most untrusted X-Forwarded-For entry; spoofed entries to its left are ignored', () => {
  const address = compileClientAddress(['10.0.0.0/8', '192.168.1.5', '::1']);
  assert.equal(address(exchange('10.1.2.3', '203.0.113.7')), '203.0.113.7');
  assert.equal(address(exchange('10.1.2.3', '6.6.6.6, 203.0.113.7')), '203.0.113.7', 'client-written 6.6.6.6 ignored');
  assert.equal(address(exchange('10.1.2.3', '6.6.6.6, 203.0.113.7, 10.9.9.9, 192.168.1.5')), '203.0.113.7', 'trusted hops skipped');
  assert.equal(address(exchange('::1', '203.0.113.8:4711')), '203.0.113.8');
  assert.equal(address(exchange('10.1.2.3')), '10.1.2.3', 'no header: the peer');
  assert.equal(address(exchange('10.1.2.3', 'garbage')), '10.1.2.3', 'unparsable: the peer');
  assert.equal(address(exchange('10.1.2.3', '10.0.0.1')), '10.1.2.3', 'only trusted hops: the peer');
});

test('an untrusted peer never gets its X-Forwarded-For believed', () => {
  const address = compileClientAddress(['10.0.0.0/8']);
  assert.equal(address(exchange('203.0.113.50', '10.0.0.1, 1.2.3.4')), '203.0.113.50');
});
