import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebhookTargetRule } from './webhook-target-rule';

const strict = new WebhookTargetRule([]);

const REFUSED = [
  '127.0.0.1', '127.9.9.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
  '::1', '::', 'fe80::1', 'fe80::1%eth0', 'fd00::1', 'fc00::1',
  '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '::ffff:10.0.0.1', '64:ff9b::a9fe:a9fe', '[::1]',
];
const ALLOWED = ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'];

test('loopback, private, link-local and their IPv4-mapped forms are refused, naming why', () => {
  for (const address of REFUSED) assert.equal(typeof strict.refusal(address), 'string', address);
  assert.equal(strict.refusal('::ffff:127.0.0.1'), 'loopback');
  assert.match(strict.refusal('169.254.169.254') ?? '', /metadata/);
});

test('public addresses pass', () => {
  for (const address of ALLOWED) assert.equal(strict.refusal(address), undefined, address);
});

test('OUTBOUND_ALLOW_CIDRS opens exactly its ranges, mapped forms included', () => {
  const rule = new WebhookTargetRule(['127.0.0.1/32', '10.0.0.0/24']);
  assert.equal(rule.refusal('127.0.0.1'), undefined);
  assert.equal(rule.refusal('::ffff:127.0.0.1'), undefined);
  assert.equal(rule.refusal('10.0.0.200'), undefined);
  assert.equal(rule.refusal('127.0.0.2'), 'loopback');
  assert.equal(typeof rule.refusal('10.0.1.1'), 'string');
  assert.equal(rule.refusal('::1'), 'IPv6 loopback');
});

test('anything but an IP address is refused (the rule judges resolved addresses only)', () => {
  assert.equal(strict.refusal('localhost'), 'not an IP address');
});
