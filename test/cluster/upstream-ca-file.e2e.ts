import { randomBytes } from 'node:crypto';
import fs, { copyFileSync, renameSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHttpSnapshotFetcher, SNAPSHOT_PATH } from '@gateway/data-plane/cluster-source';
import type { RunningDataPlane } from '@gateway/data-plane/data-plane-options';
import { InvalidConfigError, start } from '@gateway/data-plane/start';
import { InProcessBus, ROUTE_CHANGES_CHANNEL, type RouteChangeMessage, type RouteSnapshot, type SignedBus } from '@gateway/events';
import { validateProxyConfig } from '@gateway/route-model';
import { makeTempDir, makeTestCa, request, startGatewayProcess, startTextUpstream, startUpstream, type GatewayProcess, type LoopbackUpstream, type TestCa } from '@gateway/testing';
import { caller, eventually, login, managementToken, type Call } from '../api/auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../api/control-plane-process';
import { signedRedisBus } from '../api/signed-redis-bus';
import { startFollowingDataPlane, type FollowingDataPlane } from './following-data-plane';

/*
 * An API upstream's tls.caFile that a data plane cannot load (the file is gone on its host, or
 * was never there: data planes may run elsewhere) fails that upstream only: its requests get
 * the spec's 502 body and a log line naming the upstream and the file, while every other change
 * of the snapshot applies. Once on the one-process gateway (in-process bus), once with a data
 * plane of its own following a control plane process over a real Redis.
 */
const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const ADMIN = { email: 'ca-file@example.com', password: 'ca-file-propagation-password' };
const JWT_SECRET = 'ca-file-propagation-jwt-secret-0123456789';
const CLUSTER_TOKEN = 'ca-file-propagation-cluster-token-0123';

interface Upstreams {
  ca: TestCa;
  secure: LoopbackUpstream;
  plain: LoopbackUpstream;
}

async function startUpstreams(): Promise<Upstreams> {
  const ca = makeTestCa('ca-file e2e CA');
  const secure = await startUpstream({ tls: ca.issue(['127.0.0.1']), handler: (req, res) => res.end(`secure ${req.url ?? ''}`) });
  const plain = await startTextUpstream('plain');
  return { ca, secure, plain };
}

async function stopUpstreams(upstreams: Upstreams | undefined): Promise<void> {
  await upstreams?.secure.close();
  await upstreams?.plain.close();
  upstreams?.ca.remove();
}

/** The scenario both deployments run. `output`: the data plane's log lines, when the test can read them. */
async function keepsServingTheRest(call: Call, token: string, proxyUrl: string, { ca, secure, plain }: Upstreams, output?: () => readonly string[]): Promise<void> {
  const post = async (urlPath: string, body: unknown): Promise<void> => {
    const res = await call('POST', urlPath, { token, body });
    assert.equal(res.status, 201, res.text);
  };
  await post('/api/upstreams', { name: 'secure', url: secure.origin, tls: { caFile: ca.certPath } });
  await post('/api/routes', { id: 'via-secure', path: '/secure/*', upstream: 'secure' });
  // The same upstream with an active health check (its own, so the check's 503 does not hide the 502 above).
  await post('/api/upstreams', { name: 'checked', url: secure.origin, tls: { caFile: ca.certPath }, healthCheck: { enabled: true, interval: 300, timeout: 300, healthyThreshold: 1, unhealthyThreshold: 1 } });
  await post('/api/routes', { id: 'via-checked', path: '/checked/*', upstream: 'checked' });
  await eventually(async () => (await request(`${proxyUrl}/secure/x`)).text === 'secure /x', 'the https upstream is served, its CA trusted', 10_000);
  await eventually(async () => secure.requests.some((r) => r.url === '/health'), 'the check passes the CA it trusts', 10_000);
  assert.equal((await checkedTarget(proxyUrl))?.state, 'available');

  // The data plane's host loses the CA file; the next snapshot still brings every other change.
  const away = `${ca.certPath}.away`;
  renameSync(ca.certPath, away);
  try {
    await post('/api/upstreams', { name: 'plain', url: plain.origin });
    await post('/api/routes', { id: 'via-plain', path: '/plain/*', upstream: 'plain' });
    await eventually(async () => (await request(`${proxyUrl}/plain/x`)).text === 'plain', 'the new upstream and route apply despite the missing CA file', 10_000);

    const refused = await request(`${proxyUrl}/secure/x`);
    assert.equal(refused.status, 502, refused.text);
    assert.deepEqual(
      { error: refused.json()['error'], message: refused.json()['message'], correlation: typeof refused.json()['correlationId'] },
      { error: 'Bad Gateway', message: 'Upstream error', correlation: 'string' },
    );
    assert.ok(!refused.text.includes(ca.certPath), 'the file is for the log, not for clients');
    await eventually(async () => (await checkedTarget(proxyUrl))?.state === 'unhealthy', 'the health check fails without a CA to verify with', 10_000);
    const target = await checkedTarget(proxyUrl);
    assert.match(String(target?.reason), /^upstream 'checked': upstreams\[\d+\]\.tls\.caFile cannot be loaded \(the data plane's log says which file and why\)$/, JSON.stringify(target));
    assert.ok(!JSON.stringify(target).includes(ca.certPath), '/health/deep is on the proxy port: no file in it');
    if (output !== undefined) {
      // Log lines reach the test through the process's stdout: a moment after the answer.
      const logged = (...parts: string[]): Promise<boolean> => Promise.resolve(output().some((l) => parts.every((part) => l.includes(part))));
      await eventually(() => logged('upstream CA file cannot be loaded', '"upstream":"secure"', ca.certPath), 'the load logs the upstream and the file');
      await eventually(() => logged('upstream call failed', "upstream 'secure'", `${ca.certPath} does not exist`), 'each refused request logs the upstream and the file');
    }
  } finally {
    renameSync(away, ca.certPath);
  }
  // Back: the next configuration the data plane applies reads the file again.
  const patched = await call('PATCH', '/api/upstreams/plain', { token, body: { dnsRefreshInterval: 20_000 } });
  assert.equal(patched.status, 200, patched.text);
  await eventually(async () => (await request(`${proxyUrl}/secure/x`)).status === 200, 'the upstream serves again once its CA file is back', 10_000);
  await eventually(async () => (await checkedTarget(proxyUrl))?.state === 'available', 'the check passes again', 10_000);
}

/** The checked upstream's target as the data plane's /health/deep shows it. */
async function checkedTarget(proxyUrl: string): Promise<{ state: string; reason?: string } | undefined> {
  const deep = (await request(`${proxyUrl}/health/deep`)).json<{ upstreams?: Record<string, { endpoints: Array<{ state: string; reason?: string }> }> }>();
  return deep.upstreams?.['checked']?.endpoints[0];
}

describe('an unloadable CA file on the one-process gateway (in-process bus)', () => {
  let upstreams: Upstreams;
  let gateway: GatewayProcess;

  before(async () => {
    upstreams = await startUpstreams();
    gateway = await startGatewayProcess({
      role: 'all',
      config: 'version: "1.0.0"\nroutes: []\n',
      // Both planes and two scrypt hashes on a loaded machine: a hang guard, not a speed check.
      startTimeoutMs: 60_000,
      env: {
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        API_KEY_SECRET: '',
        JWT_SECRET: '',
        DATABASE_URL: '',
        REDIS_URL: '',
        API_RATE_LIMIT_ADMIN_MAX: '10000',
        API_RATE_LIMIT_GENERAL_MAX: '10000',
        GATEWAY_CA_DIRS: path.dirname(upstreams.ca.certPath),
      },
    });
  });
  after(async () => {
    await gateway?.stop();
    await stopUpstreams(upstreams);
  });

  test('fails only the upstream whose CA file is missing; the rest of the snapshot applies', async () => {
    const call = caller(gateway);
    await keepsServingTheRest(call, await login(call, ADMIN), gateway.url, upstreams, () => gateway.output);
  });
});

describe('an unloadable CA file on a data plane following over Redis', () => {
  const prefix = `test:ca-file:${process.pid}:${randomBytes(4).toString('hex')}:`;
  let upstreams: Upstreams;
  let cp: ControlPlaneProcess;
  let plane: FollowingDataPlane<SignedBus>;

  before(async () => {
    upstreams = await startUpstreams();
    const caDirs = path.dirname(upstreams.ca.certPath);
    cp = await startControlPlaneProcess({ env: { JWT_SECRET, CLUSTER_TOKEN, REDIS_URL, REDIS_CHANNEL_PREFIX: prefix, GATEWAY_CA_DIRS: caDirs } });
    // The data plane holds upstreams' CA files to its own GATEWAY_CA_DIRS too (the same directory here).
    plane = await startFollowingDataPlane(signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN), cp.url, CLUSTER_TOKEN, undefined, { GATEWAY_CA_DIRS: caDirs });
  });
  after(async () => {
    await plane?.close();
    await cp?.stop();
    await stopUpstreams(upstreams);
  });

  test('fails only the upstream whose CA file is missing; the rest of the snapshot applies', async () => {
    await keepsServingTheRest(caller(cp), managementToken(JWT_SECRET, 'admin'), plane.url, upstreams);
  });
});

/*
 * Nothing is trusted for arriving on an internal channel: a snapshot that never went through the
 * control plane's API (here served by a forged snapshot endpoint, announced by a `reloaded`
 * message signed and published straight onto Redis) names /etc/shadow and a good CA bundle
 * outside the data plane's GATEWAY_CA_DIRS. The data plane opens neither, answers 502 for those
 * upstreams only and applies the rest of the snapshot. The upstream entries even claim
 * `source: file`: the marker travels on the same channel, so it exempts nothing.
 */
describe('a snapshot published straight onto the bus naming /etc/shadow', () => {
  const prefix = `test:ca-rule:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const dataDir = makeTempDir('ca-rule-dp-');
  const elsewhere = makeTempDir('ca-rule-outside-');
  let upstreams: Upstreams;
  let outsideCa: string;
  let served: RouteSnapshot;
  let forged: http.Server;
  let plane: RunningDataPlane;
  let planeBus: SignedBus;
  let publisher: SignedBus;
  const logLines: string[] = [];
  const spies: Array<{ mock: { calls: Array<{ arguments: unknown[] }> } }> = [];
  const touched = (): string[] => spies.flatMap((spy) => spy.mock.calls.map((call) => String(call.arguments[0])));

  /** A snapshot as a control plane writes it, from upstreams and routes in proxy.yml's shape. */
  const snapshot = (version: number, input: { upstreams: unknown[]; routes: unknown[] }): RouteSnapshot => {
    const result = validateProxyConfig({ version: '1.0.0', ...input });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    return { version, createdAt: new Date().toISOString(), routes: result.value.routes, upstreams: result.value.upstreams };
  };

  before(async () => {
    upstreams = await startUpstreams();
    // A good CA bundle, the one that signs the upstream, but outside the CA directories.
    outsideCa = path.join(elsewhere.path, 'ca.pem');
    copyFileSync(upstreams.ca.certPath, outsideCa);
    served = snapshot(1, {
      upstreams: [{ name: 'good', url: upstreams.secure.origin, tls: { caFile: upstreams.ca.certPath } }],
      routes: [{ id: 'via-good', path: '/good/*', upstream: 'good' }],
    });
    forged = http.createServer((req, res) => {
      if (req.url !== SNAPSHOT_PATH) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served));
    });
    await new Promise<void>((resolve) => forged.listen(0, '127.0.0.1', resolve));
    // The data plane runs in this process: the files it opens, stats or resolves go through these spies.
    for (const name of ['openSync', 'readFileSync', 'statSync', 'realpathSync'] as const) spies.push(mock.method(fs, name));
    planeBus = signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN);
    publisher = signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN);
    plane = await start({
      configPath: path.join(dataDir.path, 'absent-proxy.yml'),
      dataDir: dataDir.path,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'info',
      logRecorder: { write: (line) => void logLines.push(line) },
      env: { GATEWAY_CA_DIRS: path.dirname(upstreams.ca.certPath) },
      routeSource: { kind: 'control-plane', bus: planeBus, fetchSnapshot: createHttpSnapshotFetcher(`http://127.0.0.1:${(forged.address() as AddressInfo).port}`, CLUSTER_TOKEN) },
    });
  });
  after(async () => {
    mock.restoreAll();
    await plane?.close();
    await planeBus?.close();
    await publisher?.close();
    await new Promise((resolve) => forged?.close(resolve));
    await stopUpstreams(upstreams);
    dataDir.remove();
    elsewhere.remove();
  });

  test('the data plane opens neither file: 502 for those upstreams only, logged with upstream and field; the rest applies', async () => {
    const proxyUrl = `http://127.0.0.1:${plane.port}`;
    await eventually(async () => (await request(`${proxyUrl}/good/x`)).text === 'secure /x', 'the snapshot of the forged endpoint is served', 10_000);

    served = snapshot(2, {
      upstreams: [
        { name: 'good', url: upstreams.secure.origin, tls: { caFile: upstreams.ca.certPath } },
        { name: 'shadow', url: upstreams.secure.origin, tls: { caFile: '/etc/shadow' } },
        { name: 'outside', url: upstreams.secure.origin, tls: { caFile: outsideCa } },
        { name: 'plain', url: upstreams.plain.origin },
      ],
      routes: [
        { id: 'via-good', path: '/good/*', upstream: 'good' },
        { id: 'via-shadow', path: '/shadow/*', upstream: 'shadow' },
        { id: 'via-outside', path: '/outside/*', upstream: 'outside' },
        { id: 'via-plain', path: '/plain/*', upstream: 'plain' },
      ],
    });
    assert.ok(served.upstreams.every((u) => u.source === 'file'), 'each entry claims to come from proxy.yml');
    await publisher.publish<RouteChangeMessage>(ROUTE_CHANGES_CHANNEL, { kind: 'reloaded', version: 2 });
    await eventually(async () => (await request(`${proxyUrl}/plain/x`)).text === 'plain', 'the rest of the snapshot applies', 10_000);

    const before = upstreams.secure.requests.length;
    for (const refusedPath of ['/shadow/x', '/outside/x']) {
      const refused = await request(`${proxyUrl}${refusedPath}`);
      assert.equal(refused.status, 502, refused.text);
      assert.deepEqual({ error: refused.json()['error'], message: refused.json()['message'] }, { error: 'Bad Gateway', message: 'Upstream error' });
    }
    assert.equal(upstreams.secure.requests.length, before, 'no connection for a refused upstream');
    assert.equal((await request(`${proxyUrl}/good/x`)).text, 'secure /x', 'the upstream inside the directories still served');

    const logged = (...parts: string[]): boolean => logLines.some((l) => parts.every((part) => l.includes(part)));
    await eventually(async () => logged('upstream CA file cannot be loaded', '"upstream":"shadow"', '"field":"upstreams[1].tls.caFile"', 'must be inside a CA directory'), 'the load logs upstream and field for /etc/shadow');
    await eventually(async () => logged('upstream CA file cannot be loaded', '"upstream":"outside"', '"field":"upstreams[2].tls.caFile"', 'must be inside a CA directory'), 'the load logs upstream and field for the outside bundle');
    assert.ok(touched().includes(upstreams.ca.certPath), 'the spies see the files the data plane reads');
    assert.deepEqual(touched().filter((file) => file === '/etc/shadow' || file === outsideCa), [], 'neither refused file was opened, stat-ed or resolved');
  });
});

test("a data plane following a control plane refuses to start on a bad GATEWAY_CA_DIRS, naming the variable", async () => {
  const dir = makeTempDir('ca-dirs-start-');
  try {
    const attempt = start({
      configPath: path.join(dir.path, 'absent-proxy.yml'),
      dataDir: dir.path,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
      env: { GATEWAY_CA_DIRS: '/' },
      routeSource: { kind: 'control-plane', bus: new InProcessBus(), fetchSnapshot: () => Promise.reject(new Error('never asked')) },
    });
    await assert.rejects(attempt, (error: unknown) => {
      assert.ok(error instanceof InvalidConfigError);
      assert.deepEqual(error.errors, [{ field: 'GATEWAY_CA_DIRS', code: 'VALIDATION_ERROR', message: 'must not list / (it would allow every file)' }]);
      return true;
    });
  } finally {
    dir.remove();
  }
});
