import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, renameSync, writeFileSync } from 'node:fs';
import type http2 from 'node:http2';
import https from 'node:https';
import path from 'node:path';
import { echoHandler, GATEWAY_COMMAND, makeSelfSignedCert, makeTempDir, request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { h2Connect, h2Request, handshake, httpsRequest, tlsPortOf } from './tls-clients';

/*
 * The HTTPS listener (docs/tls.md): real `gateway start` processes with certificates made by
 * openssl at test time, driven by node's tls, https and http2 clients.
 */

type Cert = ReturnType<typeof makeSelfSignedCert>;

const tlsBlock = (dir: string, extra = ''): string =>
  `  tls:\n    port: 0\n${extra}    certificates:\n` +
  `      - { certFile: "${path.join(dir, 'a.crt')}", keyFile: "${path.join(dir, 'a.key')}" }\n` +
  `      - { certFile: "${path.join(dir, 'b.crt')}", keyFile: "${path.join(dir, 'b.key')}" }\n`;

const config = (dir: string, origin: string, extra = ''): string =>
  `version: "1.0.0"\nproxy:\n  requestTimeout: 5000\n  headersTimeout: 3000\n${tlsBlock(dir, extra)}` +
  `routes:\n  - { id: echo, path: /echo, upstream: "${origin}", stripPath: false }\n`;

/** Installs a certificate under `name` in `dir`; key and certificate are each swapped atomically. */
function install(dir: string, name: string, cert: Cert): void {
  for (const [from, to] of [[cert.keyPath, `${name}.key`], [cert.certPath, `${name}.crt`]] as const) {
    copyFileSync(from, path.join(dir, `.${to}.tmp`));
    renameSync(path.join(dir, `.${to}.tmp`), path.join(dir, to));
  }
}

/** Certificates for a.test and b.test (with *.b.test) in a temp dir, an echo upstream, and a gateway serving both. */
interface TlsFixture {
  readonly dir: string;
  readonly certs: Cert[];
  readonly upstream: LoopbackUpstream;
  readonly gateway: GatewayProcess;
  readonly port: number;
  stop(): Promise<void>;
}

async function startTlsFixture(extra = ''): Promise<TlsFixture> {
  const dir = makeTempDir('gateway-tls-');
  const certs = [makeSelfSignedCert(['a.test']), makeSelfSignedCert(['b.test', '*.b.test'])];
  install(dir.path, 'a', certs[0] as Cert);
  install(dir.path, 'b', certs[1] as Cert);
  const upstream = await startUpstream({ handler: echoHandler });
  const gateway = await startGatewayProcess({ config: config(dir.path, upstream.origin, extra) });
  return {
    dir: dir.path,
    certs,
    upstream,
    gateway,
    port: tlsPortOf(gateway),
    stop: async () => {
      await gateway.stop();
      await upstream.close();
      for (const cert of certs) cert.remove();
      dir.remove();
    },
  };
}

describe('HTTPS listener: SNI, HTTP/1.1 and HTTP/2 side by side, certificate reload', () => {
  let fixture: TlsFixture;
  let gateway: GatewayProcess;
  let port: number;
  let dir: string;

  before(async () => {
    fixture = await startTlsFixture();
    ({ gateway, port, dir } = fixture);
  });

  after(() => fixture?.stop());

  test('chooses the certificate by SNI (exact and one-label wildcard names), the first one otherwise', async () => {
    assert.equal((await handshake(port, { servername: 'a.test' })).commonName, 'a.test');
    assert.equal((await handshake(port, { servername: 'b.test' })).commonName, 'b.test');
    assert.equal((await handshake(port, { servername: 'api.b.test' })).commonName, 'b.test');
    // A wildcard covers one label only (RFC 6125 6.4.3).
    assert.equal((await handshake(port, { servername: 'x.api.b.test' })).commonName, 'a.test');
    assert.equal((await handshake(port, { servername: 'unknown.example' })).commonName, 'a.test');
    // An IP address carries no SNI.
    assert.equal((await handshake(port)).commonName, 'a.test');
  });

  test('serves the same routes over HTTP and HTTPS, HTTP/1.1 and HTTP/2 by ALPN, TLS 1.2 and 1.3', async () => {
    const plain = await request(`${gateway.url}/echo`);
    assert.equal(plain.status, 200);
    assert.equal(plain.json<{ headers: Record<string, string> }>().headers['x-forwarded-proto'], 'http');
    const secure = await httpsRequest(port, '/echo');
    assert.equal(secure.status, 200);
    assert.equal((JSON.parse(secure.body) as { headers: Record<string, string> }).headers['x-forwarded-proto'], 'https');
    assert.equal((await handshake(port, { ALPNProtocols: ['h2', 'http/1.1'] })).alpn, 'h2');
    assert.equal((await handshake(port, { ALPNProtocols: ['http/1.1'] })).alpn, 'http/1.1');
    // The HTTP/1.1 server's own limits hold on TLS connections too.
    assert.equal((await httpsRequest(port, '/echo', { headers: { 'x-big': 'a'.repeat(20_000) } })).status, 431);
    assert.equal((await handshake(port, { maxVersion: 'TLSv1.2' })).protocol, 'TLSv1.2');
    assert.equal((await handshake(port)).protocol, 'TLSv1.3');
  });

  test('a certificate reload under load drops no request and no open connection; new handshakes get the new certificate', async () => {
    const before = (await handshake(port, { servername: 'a.test' })).fingerprint;
    const agent = new https.Agent({ keepAlive: true, maxSockets: 4 });
    const session: http2.ClientHttp2Session = await h2Connect(port, { servername: 'a.test' });
    let sent = 0;
    const failures: string[] = [];
    let reused = 0;
    let running = true;
    const worker = async (useH2: boolean): Promise<void> => {
      while (running) {
        sent += 1;
        try {
          const answer = useH2 ? await h2Request(session, { ':path': '/echo' }) : await httpsRequest(port, '/echo', { agent, servername: 'a.test' });
          if (answer.status !== 200) failures.push(`status ${answer.status}`);
        } catch (error) {
          failures.push(String(error));
        }
      }
    };
    const sockets = new Set<unknown>();
    agent.on('free', (socket) => {
      sockets.add(socket);
      reused += 1;
    });
    const workers = [worker(false), worker(false), worker(true), worker(true)];
    try {
      while (sent < 40) await new Promise((r) => setTimeout(r, 20));
      const renewed = makeSelfSignedCert(['a.test']);
      fixture.certs.push(renewed);
      install(dir, 'a', renewed);
      gateway.signal('SIGHUP');
      await gateway.waitForOutput('certificates reloaded', 20_000);
      assert.notEqual(new X509Certificate(renewed.cert).fingerprint256, before);
      assert.equal((await handshake(port, { servername: 'a.test' })).fingerprint, new X509Certificate(renewed.cert).fingerprint256, 'new handshakes use the renewed certificate');
      const atReload = sent;
      while (sent < atReload + 40) await new Promise((r) => setTimeout(r, 20));
    } finally {
      running = false;
      await Promise.all(workers);
    }
    assert.deepEqual(failures, [], `${failures.length} of ${sent} requests failed`);
    // The connections opened before the reload served on: at most the agent's 4 sockets and the one session.
    assert.ok(sockets.size <= 4, `${sockets.size} HTTPS/1.1 connections for ${reused} requests`);
    assert.equal(session.closed || session.destroyed, false, 'the HTTP/2 session survived the reload');
    session.close();
    agent.destroy();
  });

  test('a reload with a broken certificate keeps the running one and names the field and file, never key material', async () => {
    const running = (await handshake(port, { servername: 'b.test' })).fingerprint;
    writeFileSync(path.join(dir, '.b.crt.tmp'), 'not a certificate\n');
    renameSync(path.join(dir, '.b.crt.tmp'), path.join(dir, 'b.crt'));
    gateway.signal('SIGHUP');
    const line = await gateway.waitForOutput('configuration reload rejected', 20_000);
    assert.match(line, /proxy\.tls\.certificates\[1\]\.certFile/);
    assert.ok(line.includes(path.join(dir, 'b.crt')), line);
    assert.equal((await handshake(port, { servername: 'b.test' })).fingerprint, running);
    assert.equal((await httpsRequest(port, '/echo', { servername: 'b.test' })).status, 200);
    assert.equal(gateway.output.some((l) => l.includes('PRIVATE KEY')), false, 'no key in the log');
  });
});

describe('HTTPS listener: minimum version, redirect to HTTPS, start errors', () => {
  let fixture: TlsFixture;
  let gateway: GatewayProcess;
  let upstream: LoopbackUpstream;
  let dir: string;

  before(async () => {
    fixture = await startTlsFixture('    minVersion: TLSv1.3\n    redirectHttp: true\n');
    ({ gateway, upstream, dir } = fixture);
  });

  after(() => fixture?.stop());

  test('minVersion TLSv1.3 refuses a TLS 1.2 client and accepts a TLS 1.3 one', async () => {
    const port = tlsPortOf(gateway);
    await assert.rejects(handshake(port, { maxVersion: 'TLSv1.2' }), /version|protocol|alert/i);
    assert.equal((await handshake(port)).protocol, 'TLSv1.3');
  });

  test('redirectHttp: plain HTTP gets 301 (GET, HEAD) or 308 (other methods) to the HTTPS port; health and metrics stay on HTTP', async () => {
    const port = tlsPortOf(gateway);
    const get = await request(`${gateway.url}/echo?x=1`, { headers: { host: 'gw.example:8080' } });
    assert.equal(get.status, 301);
    assert.equal(get.headers['location'], `https://gw.example:${port}/echo?x=1`);
    const post = await request(`${gateway.url}/echo`, { method: 'POST', body: 'payload', headers: { host: 'gw.example' } });
    assert.equal(post.status, 308);
    assert.equal(post.headers['location'], `https://gw.example:${port}/echo`);
    assert.equal(upstream.requests.length, 0, 'nothing proxied over plain HTTP');
    assert.equal((await request(`${gateway.url}/health`)).status, 200);
    assert.equal((await request(`${gateway.url}/metrics`)).status, 200);
    assert.equal((await httpsRequest(port, '/echo?x=1')).status, 200);
  });

  test('a certificate or key that is missing or invalid stops the start, naming the field and the file', async () => {
    writeFileSync(path.join(dir, 'bad.crt'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const broken =
      `version: "1.0.0"\nproxy:\n  tls:\n    port: 0\n    certificates:\n` +
      `      - { certFile: "${path.join(dir, 'a.crt')}", keyFile: "${path.join(dir, 'missing.key')}" }\n` +
      `      - { certFile: "${path.join(dir, 'bad.crt')}", keyFile: "${path.join(dir, 'b.key')}" }\n` +
      `      - { certFile: "${path.join(dir, 'a.crt')}", keyFile: "${path.join(dir, 'b.key')}" }\n` +
      `routes: []\n`;
    const failed = await startGatewayProcess({ config: broken }).then(
      async (started) => {
        await started.stop();
        return assert.fail('the gateway started with broken certificates');
      },
      (error: Error) => error.message,
    );
    assert.match(failed, /proxy\.tls\.certificates\[0\]\.keyFile/);
    assert.ok(failed.includes(`${path.join(dir, 'missing.key')} does not exist`), failed);
    assert.match(failed, /proxy\.tls\.certificates\[1\]\.certFile/);
    // A certificate with another certificate's key.
    assert.match(failed, /proxy\.tls\.certificates\[2\]/);
    assert.equal(failed.includes('PRIVATE KEY'), false);

    // config:validate reads the files too, with the lines of the entries; relative paths are read from the file's directory.
    writeFileSync(path.join(dir, 'broken.yml'), broken);
    const validate = spawnSync(process.execPath, [...GATEWAY_COMMAND, 'config:validate', '--config', path.join(dir, 'broken.yml')], { encoding: 'utf8' });
    assert.equal(validate.status, 1, validate.stdout + validate.stderr);
    assert.match(validate.stderr, /broken\.yml:6 proxy\.tls\.certificates\[0\]\.keyFile: .*missing\.key does not exist/);
    writeFileSync(path.join(dir, 'relative.yml'), `version: "1.0.0"\nproxy:\n  tls:\n    certificates:\n      - { certFile: a.crt, keyFile: a.key }\n`);
    const relative = spawnSync(process.execPath, [...GATEWAY_COMMAND, 'config:validate', '--config', path.join(dir, 'relative.yml')], { encoding: 'utf8', cwd: '/' });
    assert.equal(relative.status, 0, relative.stdout + relative.stderr);
  });
});
