import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { OutboundAddressRule } from '@gateway/outbound-target';
import { makeTestCa, type TestCa } from '@gateway/testing';
import type { UpstreamTls } from '../../engine/upstream-tls';
import { HealthChecker } from './health-checker';

/*
 * Checks of https targets against real TLS servers on loopback, with CAs made at test time: a
 * check must trust, verify and send SNI exactly as the upstream's TLS settings say (the same
 * settings proxied requests use), and give up on a CA file that did not load.
 */

interface TlsTarget {
  readonly url: string;
  /** SNI of each TLS connection the server accepted (false: none sent). */
  readonly servernames: Array<string | false>;
  close(): Promise<void>;
}

async function startTlsTarget(leaf: { key: string; cert: string }, handler: (res: import('node:http').ServerResponse) => void = (res) => res.end('ok')): Promise<TlsTarget> {
  const servernames: Array<string | false> = [];
  const server = https.createServer(leaf, (_req, res) => handler(res));
  server.on('secureConnection', (socket: TLSSocket) => servernames.push((socket as TLSSocket & { servername: string | false }).servername));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/health`,
    servernames,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const checkers: HealthChecker[] = [];

/** One check (interval far beyond the test), its verdict awaited: healthyThreshold and unhealthyThreshold are 1. */
async function checkOnce(url: string, tls: UpstreamTls | undefined, expectedBody?: string): Promise<HealthChecker> {
  const checker = new HealthChecker(
    { url, interval: 600_000, timeout: 20_000, healthyThreshold: 1, unhealthyThreshold: 1, expectedStatus: 200, expectedBody },
    () => undefined,
    new OutboundAddressRule(),
    tls,
  );
  checkers.push(checker);
  checker.start();
  while (checker.status().lastCheck === null) await new Promise((resolve) => setTimeout(resolve, 5));
  return checker;
}

function tlsOf(settings: Partial<UpstreamTls>): UpstreamTls {
  return { ca: undefined, caDigest: '', verify: true, serverName: undefined, ...settings };
}

describe('active health checks of https targets', () => {
  let ca: TestCa;
  let otherCa: TestCa;
  let trusted: TlsTarget;
  let endless: TlsTarget;

  before(async () => {
    ca = makeTestCa('health check CA');
    otherCa = makeTestCa('another CA');
    const leaf = ca.issue(['127.0.0.1', 'api.internal']);
    trusted = await startTlsTarget(leaf);
    // Answers 200 with a body that never ends: a check must judge it without reading it all.
    endless = await startTlsTarget(leaf, (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('ready\n');
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
  });

  after(async () => {
    for (const checker of checkers) checker.stop();
    await trusted?.close();
    await endless?.close();
    ca?.remove();
    otherCa?.remove();
  });

  test('a target whose certificate comes from the upstream CA bundle is Healthy; without the bundle it is not', async () => {
    const withCa = await checkOnce(trusted.url, tlsOf({ ca: Buffer.from(ca.cert) }));
    assert.deepEqual([withCa.indicator, withCa.status().lastError], ['Healthy', null]);
    const withoutCa = await checkOnce(trusted.url, undefined);
    assert.equal(withoutCa.indicator, 'Unhealthy', 'node\'s bundled roots do not know a private CA');
    assert.match(String(withoutCa.status().lastError), /UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER/);
  });

  test('another CA is refused; verify: false accepts it, as it does for requests', async () => {
    const wrongCa = await checkOnce(trusted.url, tlsOf({ ca: Buffer.from(otherCa.cert) }));
    assert.equal(wrongCa.indicator, 'Unhealthy');
    assert.match(String(wrongCa.status().lastError), /UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER/);
    const unverified = await checkOnce(trusted.url, tlsOf({ ca: Buffer.from(otherCa.cert), verify: false }));
    assert.deepEqual([unverified.indicator, unverified.status().lastError], ['Healthy', null]);
  });

  test('serverName is sent as SNI and is the name checked; an IP URL alone sends none', async () => {
    const from = trusted.servernames.length;
    const named = await checkOnce(trusted.url, tlsOf({ ca: Buffer.from(ca.cert), serverName: 'api.internal' }));
    assert.equal(named.indicator, 'Healthy');
    const plain = await checkOnce(trusted.url, tlsOf({ ca: Buffer.from(ca.cert) }));
    assert.equal(plain.indicator, 'Healthy');
    assert.deepEqual(trusted.servernames.slice(from), ['api.internal', false]);
    const wrongName = await checkOnce(trusted.url, tlsOf({ ca: Buffer.from(ca.cert), serverName: 'elsewhere.internal' }));
    assert.equal(wrongName.indicator, 'Unhealthy');
    assert.match(String(wrongName.status().lastError), /ERR_TLS_CERT_ALTNAME_INVALID/);
  });

  test('an upstream whose CA file did not load: every check fails with the reason, without a connection', async () => {
    const from = trusted.servernames.length;
    const summary = "upstream 'svc': upstreams[0].tls.caFile cannot be loaded (the data plane's log says which file and why)";
    const refused = await checkOnce(trusted.url, tlsOf({ refusal: "upstream 'svc': upstreams[0].tls.caFile /etc/ca/x.pem does not exist", refusalSummary: summary }));
    assert.deepEqual([refused.indicator, refused.status().lastError], ['Unhealthy', summary], 'the reason, without the file (for the log only)');
    assert.equal(trusted.servernames.length, from, 'no TLS connection was made');
  });

  test('a body that never ends is judged on its first 64 KiB, not read until the timeout', async () => {
    const tls = tlsOf({ ca: Buffer.from(ca.cert) });
    const found = await checkOnce(endless.url, tls, 'ready');
    assert.deepEqual([found.indicator, found.status().lastError], ['Healthy', null]);
    const missing = await checkOnce(endless.url, tls, 'not in the first bytes');
    assert.deepEqual([missing.indicator, missing.status().lastError], ['Unhealthy', 'expected body text not found']);
  });
});
