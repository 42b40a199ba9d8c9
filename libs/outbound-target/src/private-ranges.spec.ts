import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OutboundAddressRule, parseCidrList } from './outbound-address-rule';
import { REFUSED_UNLESS_PUBLIC } from './private-ranges';

const publicOnly = new OutboundAddressRule([], REFUSED_UNLESS_PUBLIC);

test('REFUSED_UNLESS_PUBLIC: loopback, private, reserved and their mapped forms refused, naming the range; metadata keeps its own name', () => {
  const table: Array<[string, string]> = [
    ['127.0.0.1', '127.0.0.0/8'],
    ['127.9.9.9', '127.0.0.0/8'],
    ['[::ffff:127.0.0.1]', '127.0.0.0/8'],
    ['::ffff:127.0.0.1', '127.0.0.0/8'],
    ['::ffff:7f00:1', '127.0.0.0/8'],
    ['64:ff9b::7f00:1', '127.0.0.0/8'],
    ['10.1.2.3', '10.0.0.0/8'],
    ['::ffff:10.0.0.1', '10.0.0.0/8'],
    ['172.16.0.1', '172.16.0.0/12'],
    ['172.31.255.255', '172.16.0.0/12'],
    ['192.168.1.1', '192.168.0.0/16'],
    ['100.64.0.1', '100.64.0.0/10'],
    ['0.0.0.0', '0.0.0.0/8'],
    ['192.0.0.8', '192.0.0.0/24'],
    ['198.19.0.1', '198.18.0.0/15'],
    ['239.1.1.1', '224.0.0.0/3'],
    ['255.255.255.255', '224.0.0.0/3'],
    ['::', '::/128'],
    ['::1', '::1/128'],
    ['fd00::1', 'fc00::/7'],
    ['fc00::1', 'fc00::/7'],
    ['ff02::1', 'ff00::/8'],
    ['169.254.169.254', '169.254.0.0/16'],
    ['fe80::1%eth0', 'fe80::/10'],
    ['fd00:ec2::254', 'fd00:ec2::254/128'],
    ['100.100.100.200', '100.100.100.200/32'],
  ];
  for (const [address, cidr] of table) assert.equal(publicOnly.refusal(address)?.range.cidr, cidr, address);
  assert.equal(publicOnly.refusal('::1')?.range.what, 'IPv6 loopback');
  assert.match(publicOnly.refusal('169.254.169.254')?.range.what ?? '', /metadata/);
});

test('REFUSED_UNLESS_PUBLIC: public addresses pass, the edges of the private ranges included', () => {
  for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '172.15.255.255', '100.128.0.1', '11.0.0.1', '198.20.0.1', '223.255.255.255', '2606:4700::1111', '::ffff:8.8.8.8']) {
    assert.equal(publicOnly.refusal(address), undefined, address);
  }
});

test('REFUSED_UNLESS_PUBLIC: OUTBOUND_ALLOW_CIDRS opens exactly its ranges, mapped forms included', () => {
  const parsed = parseCidrList('127.0.0.1/32, 10.0.0.0/24');
  assert.ok(parsed.ok);
  const rule = new OutboundAddressRule(parsed.cidrs, REFUSED_UNLESS_PUBLIC);
  assert.equal(rule.refusal('127.0.0.1'), undefined);
  assert.equal(rule.refusal('::ffff:127.0.0.1'), undefined);
  assert.equal(rule.refusal('10.0.0.200'), undefined);
  assert.equal(rule.refusal('127.0.0.2')?.range.what, 'loopback');
  assert.equal(rule.refusal('10.0.1.1')?.range.cidr, '10.0.0.0/8');
  assert.equal(rule.refusal('::1')?.range.cidr, '::1/128');
});

test('the default rule is unchanged by the private ranges: loopback and private stay reachable for route tests', () => {
  const rule = new OutboundAddressRule();
  for (const address of ['127.0.0.1', '10.0.0.5', '192.168.1.10', 'fd00::1', '::1']) assert.equal(rule.refusal(address), undefined, address);
});
