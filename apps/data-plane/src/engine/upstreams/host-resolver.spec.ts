import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HostResolver, parseDnsServers } from './host-resolver';

describe('GATEWAY_DNS_SERVERS', () => {
  it('accepts ip, ip:port and [ipv6]:port, comma-separated; empty means the system resolvers', () => {
    assert.deepEqual(parseDnsServers('127.0.0.1:5353, 10.0.0.2,[::1]:53,::1', 'V'), ['127.0.0.1:5353', '10.0.0.2', '[::1]:53', '::1']);
    assert.equal(parseDnsServers(undefined, 'V'), undefined);
    assert.equal(parseDnsServers(' ', 'V'), undefined);
  });

  it('names the variable and the bad entry', () => {
    assert.throws(() => parseDnsServers('127.0.0.1,dns.example', 'GATEWAY_DNS_SERVERS'), /GATEWAY_DNS_SERVERS: 'dns.example' is not an IP address/);
    assert.throws(() => parseDnsServers('127.0.0.1:70000', 'V'), /'127.0.0.1:70000'/);
  });

  it('resolves names only: not IP literals, not localhost', () => {
    assert.equal(HostResolver.needsResolution('10.1.2.3'), false);
    assert.equal(HostResolver.needsResolution('::1'), false);
    assert.equal(HostResolver.needsResolution('localhost'), false);
    assert.equal(HostResolver.needsResolution('backend.default.svc.cluster.local'), true);
  });
});
