import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OutboundAddressRule, parseCidrList, type Cidr } from './outbound-address-rule';

const allow = (text: string): Cidr[] => {
  const parsed = parseCidrList(text);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.message);
  return parsed.cidrs;
};

test('refused by default: cloud metadata and link-local, in every spelling; allowed: loopback, private, public', () => {
  const rule = new OutboundAddressRule();
  const table: Array<[string, string | undefined]> = [
    ['169.254.169.254', '169.254.0.0/16'],
    ['169.254.170.2', '169.254.0.0/16'],
    ['169.254.0.1', '169.254.0.0/16'],
    ['::ffff:169.254.169.254', '169.254.0.0/16'],
    ['::ffff:a9fe:a9fe', '169.254.0.0/16'],
    ['64:ff9b::a9fe:a9fe', '169.254.0.0/16'],
    ['64:ff9b::169.254.169.254', '169.254.0.0/16'],
    ['fe80::1', 'fe80::/10'],
    ['fe80::1%eth0', 'fe80::/10'],
    ['FEBF:ffff::1', 'fe80::/10'],
    ['fd00:ec2::254', 'fd00:ec2::254/128'],
    ['fd20:ce::254', 'fd20:ce::254/128'],
    ['100.100.100.200', '100.100.100.200/32'],
    ['168.63.129.16', '168.63.129.16/32'],
    ['not-an-address', '-'],
    ['127.0.0.1', undefined],
    ['::1', undefined],
    ['::ffff:127.0.0.1', undefined],
    ['10.0.0.5', undefined],
    ['192.168.1.10', undefined],
    ['172.16.0.1', undefined],
    ['100.100.100.201', undefined],
    ['169.253.255.255', undefined],
    ['169.255.0.0', undefined],
    ['fec0::1', undefined],
    ['fd00:ec2::253', undefined],
    ['93.184.216.34', undefined],
    ['2606:2800:220:1::1', undefined],
  ];
  for (const [address, cidr] of table) assert.equal(rule.refusal(address)?.range.cidr, cidr, address);
});

test('OUTBOUND_ALLOW_CIDRS makes exceptions, and only those', () => {
  const rule = new OutboundAddressRule(allow('169.254.10.0/24, fd00:ec2::254  100.100.100.200/32'));
  assert.equal(rule.refusal('169.254.10.7'), undefined);
  assert.equal(rule.refusal('::ffff:169.254.10.7'), undefined);
  assert.equal(rule.refusal('fd00:ec2::254'), undefined);
  assert.equal(rule.refusal('100.100.100.200'), undefined);
  assert.equal(rule.refusal('169.254.169.254')?.range.cidr, '169.254.0.0/16');
  assert.equal(rule.refusal('fe80::1')?.range.cidr, 'fe80::/10');
});

test('parseCidrList: addresses, CIDRs, empty; bad entries named', () => {
  assert.deepEqual(parseCidrList(undefined), { ok: true, cidrs: [] });
  assert.deepEqual(parseCidrList(' '), { ok: true, cidrs: [] });
  assert.deepEqual(allow('169.254.169.254'), [{ address: '169.254.169.254', prefix: 32, family: 'ipv4' }]);
  assert.deepEqual(allow('fe80::/10'), [{ address: 'fe80::', prefix: 10, family: 'ipv6' }]);
  const bad: Array<[string, RegExp]> = [
    ['metadata.internal', /"metadata\.internal" is not an IP address or CIDR/],
    ['10.0.0.0/33', /"10\.0\.0\.0\/33" has a prefix length outside 0-32/],
    ['fe80::/129', /outside 0-128/],
    ['10.0.0.0/', /outside 0-32/],
    ['10.0.0.0/-1', /outside 0-32/],
    ['10.0.0.0/8, 300.1.1.1', /"300\.1\.1\.1" is not an IP address/],
  ];
  for (const [text, message] of bad) {
    const parsed = parseCidrList(text);
    assert.equal(parsed.ok, false, text);
    assert.match(parsed.ok ? '' : parsed.message, message);
  }
});
