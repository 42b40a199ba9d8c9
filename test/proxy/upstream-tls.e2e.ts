import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, renameSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { makeTempDir, makeTestCa, request, startGatewayProcess, type GatewayProcess, type TestCa } from '@gateway/testing';

/** A loopback HTTPS upstream that records, per TLS connection, the SNI it got and whether the session was resumed. */
interface TlsUpstream {
  readonly port: number;
  readonly connections: Array<{ servername: string | false; resumed: boolean }>;
  close(): Promise<void>;
}

async function startTlsUpstream(key: string, cert: string): Promise<TlsUpstream> {
  const connections: TlsUpstream['connections'] = [];
  const server = https.createServer({ key, cert }, (req, res) => {
    // /close answers on a connection of its own each time (the next one must resume the TLS session).
    res.writeHead(200, { 'content-type': 'text/plain', ...(req.url?.endsWith('/close') ? { connection: 'close' } : {}) });
    res.end(`secure ${req.url ?? ''}`);
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    connections.push({ servername: (socket as TLSSocket & { servername: string | false }).servername, resumed: socket.isSessionReused() });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('HTTPS upstreams (lean client over node:tls)', () => {
  let ca: TestCa;
  let otherCa: TestCa;
  let trusted: TlsUpstream;
  let foreign: TlsUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    ca = makeTestCa('gateway test CA');
    otherCa = makeTestCa('someone else');
    const leaf = ca.issue(['localhost', 'api.internal', '127.0.0.1']);
    trusted = await startTlsUpstream(leaf.key, leaf.cert);
    const foreignLeaf = otherCa.issue(['localhost', '127.0.0.1']);
    foreign = await startTlsUpstream(foreignLeaf.key, foreignLeaf.cert);
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
proxy:
  upstreamTls: { caFile: "${ca.certPath}" }
upstreams:
  - { name: by-name, url: "https://localhost:${trusted.port}" }
  - { name: sni-override, url: "https://127.0.0.1:${trusted.port}", tls: { serverName: api.internal } }
  - { name: wrong-name, url: "https://127.0.0.1:${trusted.port}", tls: { serverName: elsewhere.internal } }
  - { name: foreign, url: "https://127.0.0.1:${foreign.port}" }
  - { name: foreign-trusted, url: "https://127.0.0.1:${foreign.port}", tls: { caFile: "${otherCa.certPath}" } }
  - { name: foreign-unverified, url: "https://127.0.0.1:${foreign.port}", tls: { verify: false } }
routes:
  - { path: /name/*, upstream: by-name }
  - { path: /ip/*, upstream: "https://127.0.0.1:${trusted.port}" }
  - { path: /sni/*, upstream: sni-override }
  - { path: /wrong-name/*, upstream: wrong-name }
  - { path: /foreign/*, upstream: foreign }
  - { path: /foreign-trusted/*, upstream: foreign-trusted }
  - { path: /foreign-unverified/*, upstream: foreign-unverified }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await trusted?.close();
    await foreign?.close();
    ca?.remove();
    otherCa?.remove();
  });

  const since = (from: number): TlsUpstream['connections'] => trusted.connections.slice(from);

  test('a certificate from the configured CA is verified; SNI is the host name; keep-alive reuses one connection', async () => {
    const from = trusted.connections.length;
    for (let i = 0; i < 5; i += 1) {
      const res = await request(`${gateway.url}/name/hello`);
      assert.deepEqual([res.status, res.text], [200, 'secure /hello']);
    }
    assert.deepEqual(since(from).map((c) => c.servername), ['localhost'], 'one TLS connection, SNI localhost');
  });

  test('an IP literal upstream sends no SNI and is verified against the certificate\'s IP address', async () => {
    const from = trusted.connections.length;
    const res = await request(`${gateway.url}/ip/x`);
    assert.equal(res.status, 200);
    assert.deepEqual(since(from).map((c) => c.servername), [false]);
  });

  test('tls.serverName sets SNI and the name checked; a name the certificate lacks gets 502', async () => {
    const from = trusted.connections.length;
    assert.equal((await request(`${gateway.url}/sni/x`)).status, 200);
    assert.deepEqual(since(from).map((c) => c.servername), ['api.internal']);
    const wrong = await request(`${gateway.url}/wrong-name/x`);
    assert.equal(wrong.status, 502);
    assert.equal(wrong.json<{ message: string }>().message, 'Upstream error');
  });

  test('a certificate from a CA the gateway does not trust gets 502; its own tls.caFile or verify: false lets it through', async () => {
    const refused = await request(`${gateway.url}/foreign/x`);
    assert.equal(refused.status, 502);
    assert.equal((await request(`${gateway.url}/foreign-trusted/x`)).status, 200);
    assert.equal((await request(`${gateway.url}/foreign-unverified/x`)).status, 200);
    assert.ok(
      gateway.output.some((line) => line.includes('NOT verified') && line.includes('foreign-unverified')),
      'verify: false is warned at load',
    );
    assert.ok(gateway.output.some((line) => line.includes('upstream call failed') && /CERT|certificate|UNABLE/i.test(line)), 'the refusal is logged with its cause');
  });

  test('new connections resume the TLS session instead of a full handshake', async () => {
    const from = trusted.connections.length;
    for (let i = 0; i < 3; i += 1) assert.equal((await request(`${gateway.url}/name/close`)).status, 200);
    // The connection closes after every answer; the session from the first one is offered again.
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The first may be the kept-alive connection of an earlier test; every new one resumes a session.
    const seen = since(from);
    assert.ok(seen.length >= 2, `${seen.length} new connections`);
    assert.deepEqual(
      seen.map((c) => c.resumed),
      seen.map(() => true),
    );
  });
});

describe('a CA file rotated at the same path', () => {
  let oldCa: TestCa;
  let newCa: TestCa;
  let upstream: TlsUpstream;
  let gateway: GatewayProcess;
  const dir = makeTempDir('rotating-ca-');
  const caFile = path.join(dir.path, 'bundle.pem');

  /** As an operator does it: the new bundle renamed into place, so no load sees half a file. */
  const install = (ca: TestCa): void => {
    copyFileSync(ca.certPath, `${caFile}.tmp`);
    renameSync(`${caFile}.tmp`, caFile);
  };

  before(async () => {
    oldCa = makeTestCa('retired CA');
    newCa = makeTestCa('renewed CA');
    const leaf = newCa.issue(['127.0.0.1']);
    upstream = await startTlsUpstream(leaf.key, leaf.cert);
    install(oldCa);
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
upstreams:
  - { name: rotating, url: "https://127.0.0.1:${upstream.port}", tls: { caFile: "${caFile}" } }
routes:
  - { path: /rotating/*, upstream: rotating }
  - { path: /other/*, upstream: "http://127.0.0.1:1" }
`,
    });
  });
  after(async () => {
    await gateway?.stop();
    await upstream?.close();
    oldCa?.remove();
    newCa?.remove();
    dir.remove();
  });

  test('a SIGHUP with proxy.yml unchanged makes the route trust the new bundle (no route changed, none compiled again)', async () => {
    assert.equal((await request(`${gateway.url}/rotating/x`)).status, 502, 'the upstream\'s certificate is from the new CA, not yet trusted');
    install(newCa);
    gateway.signal('SIGHUP');
    await gateway.waitForOutput('configuration reloaded', 20_000);
    const res = await request(`${gateway.url}/rotating/x`);
    assert.deepEqual([res.status, res.text], [200, 'secure /x']);
  });
});

/** Starts a data plane on `config` and expects the start to fail with a message containing every one of `texts`. */
async function assertStartFails(config: string, texts: readonly string[]): Promise<void> {
  await assert.rejects(startGatewayProcess({ config, startTimeoutMs: 30_000 }), (error: Error) => texts.every((text) => error.message.includes(text)));
}

describe('HTTPS upstream settings that cannot load', () => {
  test('an unreadable caFile fails the start with the field and file named', async () => {
    await assertStartFails(
      `
version: "1.0.0"
upstreams:
  - { name: svc, url: "https://127.0.0.1:1", tls: { caFile: /nonexistent/ca.pem } }
routes:
  - { path: /x/*, upstream: svc }
`,
      ['upstreams[0].tls.caFile', '/nonexistent/ca.pem'],
    );
  });

  test('a serverName that is not a host name is refused by validation, naming the field', async () => {
    await assertStartFails(
      `
version: "1.0.0"
upstreams:
  - { name: svc, url: "https://127.0.0.1:1", tls: { serverName: "bad name/x" } }
routes:
  - { path: /x/*, upstream: svc }
`,
      ['tls.serverName'],
    );
  });
});
