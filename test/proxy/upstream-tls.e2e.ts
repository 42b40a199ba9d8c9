import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, renameSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { makeTempDir, makeTestCa, request, startGatewayProcess, type GatewayProcess, type TestCa } from '@gateway/testing';

/** A loopback HTTPS upstream that records, per TLS connection, the SNI it got and whether the session was resumed; per request, its path and SNI. */
interface TlsUpstream {
  readonly port: number;
  readonly connections: Array<{ servername: string | false; resumed: boolean }>;
  readonly requests: Array<{ url: string; servername: string | false }>;
  close(): Promise<void>;
}

async function startTlsUpstream(key: string, cert: string): Promise<TlsUpstream> {
  const connections: TlsUpstream['connections'] = [];
  const requests: TlsUpstream['requests'] = [];
  const server = https.createServer({ key, cert }, (req, res) => {
    requests.push({ url: req.url ?? '', servername: (req.socket as TLSSocket & { servername: string | false }).servername });
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
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Two CAs made at test time, an upstream with a certificate of each (`trusted`: the one proxy.upstreamTls names in these tests). */
interface TwoCaUpstreams {
  readonly ca: TestCa;
  readonly otherCa: TestCa;
  readonly trusted: TlsUpstream;
  readonly foreign: TlsUpstream;
  close(): Promise<void>;
}

async function startTwoCaUpstreams(): Promise<TwoCaUpstreams> {
  const ca = makeTestCa('gateway test CA');
  const otherCa = makeTestCa('someone else');
  const leaf = ca.issue(['localhost', 'api.internal', '127.0.0.1']);
  const trusted = await startTlsUpstream(leaf.key, leaf.cert);
  const foreignLeaf = otherCa.issue(['localhost', '127.0.0.1']);
  const foreign = await startTlsUpstream(foreignLeaf.key, foreignLeaf.cert);
  return {
    ca,
    otherCa,
    trusted,
    foreign,
    close: async () => {
      await trusted.close();
      await foreign.close();
      ca.remove();
      otherCa.remove();
    },
  };
}

describe('HTTPS upstreams (lean client over node:tls)', () => {
  let upstreams: TwoCaUpstreams;
  let ca: TestCa;
  let otherCa: TestCa;
  let trusted: TlsUpstream;
  let foreign: TlsUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    upstreams = await startTwoCaUpstreams();
    ({ ca, otherCa, trusted, foreign } = upstreams);
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
    await upstreams?.close();
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

/** A target's state in /health/deep (named upstreams). */
interface DeepEndpoint {
  target: string;
  state: string;
  reason?: string;
}

describe('active health checks of HTTPS upstreams use the upstream\'s TLS settings', () => {
  let upstreams: TwoCaUpstreams;
  let ca: TestCa;
  let trusted: TlsUpstream;
  let foreign: TlsUpstream;
  let gateway: GatewayProcess;
  const check = 'healthCheck: { enabled: true, interval: 1000, timeout: 1000, healthyThreshold: 1, unhealthyThreshold: 1 }';

  before(async () => {
    upstreams = await startTwoCaUpstreams();
    ({ ca, trusted, foreign } = upstreams);
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
proxy:
  upstreamTls: { caFile: "${ca.certPath}" }
upstreams:
  - { name: private-ca, url: "https://localhost:${trusted.port}/private", ${check} }
  - { name: wrong-ca, url: "https://127.0.0.1:${foreign.port}/wrong", ${check} }
  - { name: unverified, url: "https://127.0.0.1:${foreign.port}/unverified", tls: { verify: false }, ${check} }
  - { name: sni, url: "https://127.0.0.1:${trusted.port}/sni", tls: { serverName: api.internal }, ${check} }
routes:
  - { path: /private-ca/*, upstream: private-ca }
  - { path: /wrong-ca/*, upstream: wrong-ca }
  - { path: /unverified/*, upstream: unverified }
  - { path: /sni/*, upstream: sni }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstreams?.close();
  });

  /** Each upstream's targets as /health/deep shows them, once every upstream has had a verdict. */
  const verdicts = async (): Promise<Record<string, DeepEndpoint>> => {
    const names = ['private-ca', 'wrong-ca', 'unverified', 'sni'];
    const checked = (): boolean =>
      trusted.requests.some((r) => r.url === '/private/health') &&
      trusted.requests.some((r) => r.url === '/sni/health') &&
      foreign.requests.some((r) => r.url === '/unverified/health');
    for (let i = 0; i < 200 && !checked(); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(checked(), 'every trusted upstream was checked');
    // The untrusted one fails at the handshake, before any request: wait for its verdict in /health/deep.
    let deep: Record<string, DeepEndpoint> = {};
    for (let i = 0; i < 200; i += 1) {
      const shown = (await request(`${gateway.url}/health/deep`)).json<{ upstreams: Record<string, { endpoints: DeepEndpoint[] }> }>().upstreams;
      deep = Object.fromEntries(names.map((name) => [name, shown[name]?.endpoints[0] as DeepEndpoint]));
      if (deep['wrong-ca']?.state === 'unhealthy') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return deep;
  };

  test('a private CA via caFile: Healthy, as its requests succeed', async () => {
    const deep = await verdicts();
    assert.equal(deep['private-ca']?.state, 'available', JSON.stringify(deep));
    assert.equal((await request(`${gateway.url}/private-ca/x`)).status, 200);
  });

  test('a certificate from a CA the upstream does not trust: unhealthy in /health/deep with the TLS error, as its requests fail', async () => {
    const deep = await verdicts();
    assert.equal(deep['wrong-ca']?.state, 'unhealthy', JSON.stringify(deep));
    assert.match(String(deep['wrong-ca']?.reason), /UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER/);
    assert.equal(foreign.requests.filter((r) => r.url.startsWith('/wrong')).length, 0, 'no check got past the handshake');
    // With its only target unhealthy the route answers 503 (the check's verdict); a 502 would mean a doomed call.
    assert.equal((await request(`${gateway.url}/wrong-ca/x`)).status, 503);
  });

  test('verify: false: Healthy against a CA nobody trusts, as its requests succeed', async () => {
    const deep = await verdicts();
    assert.equal(deep['unverified']?.state, 'available', JSON.stringify(deep));
    assert.equal((await request(`${gateway.url}/unverified/x`)).status, 200);
  });

  test('tls.serverName is the SNI of the checks, as of the requests', async () => {
    const deep = await verdicts();
    assert.equal(deep['sni']?.state, 'available', JSON.stringify(deep));
    const checks = trusted.requests.filter((r) => r.url === '/sni/health');
    assert.ok(checks.length > 0);
    assert.deepEqual([...new Set(checks.map((r) => r.servername))], ['api.internal']);
    assert.deepEqual([...new Set(trusted.requests.filter((r) => r.url === '/private/health').map((r) => r.servername))], ['localhost'], 'the host name otherwise');
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
