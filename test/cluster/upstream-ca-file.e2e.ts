import { randomBytes } from 'node:crypto';
import { renameSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SignedBus } from '@gateway/events';
import { makeTestCa, request, startGatewayProcess, startTextUpstream, startUpstream, type GatewayProcess, type LoopbackUpstream, type TestCa } from '@gateway/testing';
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
  await eventually(async () => (await request(`${proxyUrl}/secure/x`)).text === 'secure /x', 'the https upstream is served, its CA trusted', 10_000);

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
    cp = await startControlPlaneProcess({ env: { JWT_SECRET, CLUSTER_TOKEN, REDIS_URL, REDIS_CHANNEL_PREFIX: prefix, GATEWAY_CA_DIRS: path.dirname(upstreams.ca.certPath) } });
    plane = await startFollowingDataPlane(signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN), cp.url, CLUSTER_TOKEN);
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
