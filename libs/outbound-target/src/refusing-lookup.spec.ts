import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rebindingResolver } from '@gateway/testing';
import { OutboundAddressRule } from './outbound-address-rule';
import { outboundConnectOptions, OutboundTargetRefusedError, type Resolver } from './refusing-lookup';

/** A loopback server that counts the connections it accepts. */
async function countingServer(): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  let connections = 0;
  const server = http.createServer((_req, res) => res.end('ok'));
  server.on('connection', () => (connections += 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, connections: () => connections, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function get(url: URL, rule: OutboundAddressRule, resolver?: Resolver): Promise<{ status?: number; error?: NodeJS.ErrnoException }> {
  return new Promise((resolve) => {
    let options;
    try {
      options = outboundConnectOptions(rule, url, resolver);
    } catch (error) {
      resolve({ error: error as NodeJS.ErrnoException });
      return;
    }
    const req = http.request(url, { agent: false, ...options }, (res) => {
      res.resume();
      resolve({ status: res.statusCode });
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error }));
    req.end();
  });
}

// Loopback stands in for the metadata service: a rule that refuses 127.0.0.0/8 shows a real
// socket refused on the resolved address, before any connection is made.
const LOOPBACK_REFUSED = new OutboundAddressRule([], [{ cidr: '127.0.0.0/8', what: 'loopback (test)' }]);

test('a host name is checked on the address it resolves to: no connection is made', async () => {
  const server = await countingServer();
  try {
    const refused = await get(new URL(`http://localhost:${server.port}/`), LOOPBACK_REFUSED);
    assert.ok(refused.error instanceof OutboundTargetRefusedError, String(refused.error));
    assert.equal(refused.error.code, 'OUTBOUND_TARGET_REFUSED');
    assert.match(refused.error.message, /^127\.0\.0\.1 \(localhost resolves to it\) is loopback \(test\) \(127\.0\.0\.0\/8\): .*OUTBOUND_ALLOW_CIDRS lists exceptions$/);
    assert.equal(server.connections(), 0);

    const allowed = await get(new URL(`http://localhost:${server.port}/`), new OutboundAddressRule());
    assert.equal(allowed.status, 200);
    assert.equal(server.connections(), 1);
  } finally {
    await server.close();
  }
});

test('an IP literal (which net.connect never looks up) is checked before the request', async () => {
  const server = await countingServer();
  try {
    const refused = await get(new URL(`http://127.0.0.1:${server.port}/`), LOOPBACK_REFUSED);
    assert.ok(refused.error instanceof OutboundTargetRefusedError);
    assert.match(refused.error.message, /^127\.0\.0\.1 is loopback/);
    assert.equal(server.connections(), 0);
    const metadata = await get(new URL('http://169.254.169.254/latest/meta-data/'), new OutboundAddressRule());
    assert.ok(metadata.error instanceof OutboundTargetRefusedError);
    assert.match(metadata.error.message, /^169\.254\.169\.254 is IPv4 link-local, where cloud metadata services answer/);
    const bracketed = await get(new URL('http://[fd00:ec2::254]/'), new OutboundAddressRule());
    assert.ok(bracketed.error instanceof OutboundTargetRefusedError);
    assert.equal((await get(new URL(`http://127.0.0.1:${server.port}/`), new OutboundAddressRule())).status, 200);
  } finally {
    await server.close();
  }
});

test('DNS rebinding: a name that answers an allowed address, then a refused one, is judged on the address each socket connects to', async () => {
  const server = await countingServer();
  try {
    const rebinding = rebindingResolver(['127.0.0.1', '169.254.169.254']);
    const url = new URL(`http://rebind.test:${server.port}/`);
    assert.equal((await get(url, new OutboundAddressRule(), rebinding)).status, 200);
    const second = await get(url, new OutboundAddressRule(), rebinding);
    assert.ok(second.error instanceof OutboundTargetRefusedError, String(second.error));
    assert.match(second.error.message, /^169\.254\.169\.254 \(rebind\.test resolves to it\) is IPv4 link-local/);
    assert.equal(server.connections(), 1);
  } finally {
    await server.close();
  }
});
