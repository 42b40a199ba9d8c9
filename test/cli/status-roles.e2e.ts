import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  clusterSecrets,
  controlPlaneEnv,
  dataPlaneEnv,
  EMPTY_PROXY_CONFIG,
  loginToManagementApi,
  request,
  startGatewayProcess,
  startTextUpstream,
  TEST_REDIS_URL,
  type ClusterSecrets,
  type GatewayProcess,
  type LoopbackUpstream,
  type ManagementApi,
} from '@gateway/testing';
import { runGateway } from './gateway-cli';

/*
 * `gateway status` for every role (issue 3): version, configuration revision, routes and health,
 * checked against what the control plane hands out (its cluster snapshot).
 */

interface StatusJson {
  ready: boolean;
  routes: number | null;
  configRevision: number | null;
  version: { version?: string; apiVersion?: string };
  readiness: { status: string; checks: Record<string, string> };
}

/** The control plane's snapshot: the revision and routes every data plane converges to. */
async function snapshotOf(controlPlaneUrl: string, secrets: ClusterSecrets): Promise<{ version: number; routes: unknown[] }> {
  const res = await request(`${controlPlaneUrl}/internal/cluster/snapshot`, { headers: { authorization: `Bearer ${secrets.clusterToken}` } });
  assert.equal(res.status, 200, res.text);
  return res.json<{ version: number; routes: unknown[] }>();
}

async function status(url: string): Promise<{ text: string; json: StatusJson }> {
  const [text, json] = await Promise.all([runGateway(['status', '--url', url]), runGateway(['status', '--url', url, '--json'])]);
  assert.equal(text.code, 0, text.stderr);
  assert.equal(json.code, 0, json.stderr);
  return { text: text.stdout, json: JSON.parse(json.stdout) as StatusJson };
}

function assertFacts(printed: { text: string; json: StatusJson }, expected: { version: number; routes: number; health: RegExp }): void {
  assert.match(printed.text, new RegExp(`^ {2}routes {11}${expected.routes}$`, 'm'));
  assert.match(printed.text, new RegExp(`^ {2}config revision {2}${expected.version}$`, 'm'));
  assert.match(printed.text, /^ {2}version {10}\d+\.\d+\.\d+ \(API 1\.0\.0, config schema 1\.0\.0, node v/m);
  assert.match(printed.text, expected.health);
  assert.equal(printed.json.routes, expected.routes);
  assert.equal(printed.json.configRevision, expected.version);
  assert.equal(printed.json.ready, true);
  assert.equal(printed.json.version.apiVersion, '1.0.0');
}

describe('gateway status against a one-process gateway (--role all)', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  const secrets = clusterSecrets('cli-status-all');

  before(async () => {
    upstream = await startTextUpstream('one');
    gateway = await startGatewayProcess({
      role: 'all',
      config: `version: "1.0.0"\nroutes:\n  - { path: /a/*, upstream: "${upstream.origin}" }\n  - { path: /b, upstream: "${upstream.origin}" }\n`,
      env: controlPlaneEnv(secrets, undefined),
      startTimeoutMs: 30_000,
    });
    const api = await loginToManagementApi(gateway.url, secrets.admin);
    await api.expect(201, 'POST', '/api/routes', { path: '/c/*', upstream: upstream.origin });
  });
  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  test('version, the revision and routes it serves, and its readiness with the control plane checks', async () => {
    const snapshot = await snapshotOf(gateway.url, secrets);
    assert.equal(snapshot.routes.length, 3);
    let printed = await status(gateway.url);
    // The API change reaches the data plane in this process through the in-process bus.
    for (let i = 0; i < 50 && printed.json.configRevision !== snapshot.version; i += 1) {
      await sleep(100);
      printed = await status(gateway.url);
    }
    assertFacts(printed, { version: snapshot.version, routes: 3, health: /^ {2}health {11}UP \(config UP, upstreams UP, database UP\)$/m });
  });
});

describe('gateway status against a control plane and a data plane following it', () => {
  let upstream: LoopbackUpstream;
  let controlPlane: GatewayProcess;
  let dataPlane: GatewayProcess;
  let api: ManagementApi;
  const secrets = clusterSecrets('cli-status-cluster');

  before(async () => {
    upstream = await startTextUpstream('cluster');
    controlPlane = await startGatewayProcess({
      role: 'control-plane',
      config: `version: "1.0.0"\nroutes:\n  - { path: /file/*, upstream: "${upstream.origin}" }\n`,
      env: controlPlaneEnv(secrets, TEST_REDIS_URL),
      startTimeoutMs: 30_000,
    });
    dataPlane = await startGatewayProcess({ role: 'data-plane', config: EMPTY_PROXY_CONFIG, env: dataPlaneEnv(secrets, TEST_REDIS_URL, controlPlane.url), startTimeoutMs: 30_000 });
    api = await loginToManagementApi(controlPlane.url, secrets.admin);
    await api.expect(201, 'POST', '/api/routes', { path: '/one/*', upstream: upstream.origin });
    await api.expect(201, 'POST', '/api/routes', { path: '/two/*', upstream: upstream.origin, enabled: false });
  });
  after(async () => {
    await Promise.all([dataPlane?.stop(), controlPlane?.stop()]);
    await upstream?.close();
  });

  test('the control plane: its revision and the routes of its snapshot (from its /metrics), database and Redis checks', async () => {
    const snapshot = await snapshotOf(controlPlane.url, secrets);
    assert.equal(snapshot.routes.length, 2, 'the file route and the enabled API route');
    assertFacts(await status(controlPlane.url), { version: snapshot.version, routes: 2, health: /^ {2}health {11}UP \(database UP, redis UP\)$/m });
  });

  test('the control plane serves /metrics in the text format, without credentials', async () => {
    const res = await request(`${controlPlane.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.text, /^# TYPE gateway_config_revision gauge$/m);
    assert.match(res.text, /^gateway_routes 2$/m);
  });

  test('the data plane: the revision it applied and the routes it serves, once converged', async () => {
    const snapshot = await snapshotOf(controlPlane.url, secrets);
    let printed = await status(dataPlane.url);
    for (let i = 0; i < 50 && printed.json.configRevision !== snapshot.version; i += 1) {
      await sleep(100);
      printed = await status(dataPlane.url);
    }
    assertFacts(printed, { version: snapshot.version, routes: 2, health: /^ {2}health {11}UP \(config UP, upstreams UP\)$/m });
  });

  test('config:reload on the data plane: refused, its routes come from the control plane', async () => {
    const result = await runGateway(['config:reload', '--dry-run', '--config', dataPlane.configPath, '--data-dir', dataPlane.dataDir]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`is a data plane following the control plane at ${controlPlane.url.replace(/[.]/g, '\\.')}: its routes come from there`));
  });
});
