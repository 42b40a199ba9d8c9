import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { start } from '@gateway/data-plane/start';
import { createHttpSnapshotFetcher } from '@gateway/data-plane/cluster-source';
import type { RunningDataPlane } from '@gateway/data-plane/data-plane-options';
import { makeTempDir, request, startTextUpstream, type LoopbackUpstream } from '@gateway/testing';
import type { RouteSnapshot } from '@gateway/events';
import { eventually, StandInControlPlane } from './stand-in-control-plane';

/*
 * The real data plane (start(), in-process) following a STAND-IN control plane (test double in
 * ./stand-in-control-plane.ts: an in-process bus and a snapshot provider, or its loopback HTTP
 * snapshot endpoint). Replace the stand-in by the real control plane once the CLI composes it.
 */

interface Started {
  plane: RunningDataPlane;
  url: string;
}

async function startFollower(dataDir: string, fetchSnapshot: () => Promise<RouteSnapshot>, cp: StandInControlPlane, extra: Partial<Parameters<typeof start>[0]> = {}): Promise<Started> {
  const plane = await start({
    configPath: path.join(dataDir, 'absent-proxy.yml'),
    dataDir,
    host: '127.0.0.1',
    port: 0,
    logLevel: 'silent',
    routeSource: { kind: 'control-plane', bus: cp.bus, fetchSnapshot },
    ...extra,
  });
  return { plane, url: `http://127.0.0.1:${plane.port}` };
}

const text = async (url: string): Promise<string> => {
  const res = await request(url, { timeoutMs: 3000 });
  return `${res.status} ${res.status === 200 ? res.text : ''}`.trim();
};

function savedSnapshot(dataDir: string): { version?: number; source?: string; routes: Array<{ id: string }> } {
  return JSON.parse(readFileSync(path.join(dataDir, 'routes.snapshot.json'), 'utf8')) as { version?: number; source?: string; routes: Array<{ id: string }> };
}

describe('data plane following a control plane (stand-in): published changes', () => {
  let one: LoopbackUpstream;
  let two: LoopbackUpstream;
  let cp: StandInControlPlane;
  let dp: Started;
  const dir = makeTempDir();

  before(async () => {
    one = await startTextUpstream('one');
    two = await startTextUpstream('two');
    cp = new StandInControlPlane();
    await cp.upsert({ id: 'r1', path: '/r1/*', upstream: one.origin });
    dp = await startFollower(dir.path, cp.fetchSnapshot, cp);
  });

  after(async () => {
    await dp?.plane.close();
    await cp?.close();
    await Promise.all([one?.close(), two?.close()]);
    dir.remove();
  });

  test('starts from the snapshot and is ready', async () => {
    assert.equal(await text(`${dp.url}/r1/x`), '200 one');
    const ready = await request(`${dp.url}/health/ready`);
    assert.equal(ready.status, 200);
    assert.equal(ready.json<{ checks: { config: string } }>().checks.config, 'UP');
    assert.equal((await request(`${dp.url}/version`)).status, 200);
  });

  test('a published route is served within 1 s, a changed one follows, a deleted or disabled one stops', async () => {
    const fetchesBefore = cp.snapshotsServed;
    await cp.upsert({ id: 'r2', path: '/r2', upstream: two.origin });
    await eventually(async () => (await text(`${dp.url}/r2`)) === '200 two', 'new route served', 1000);
    await cp.upsert({ id: 'r2', path: '/r2', upstream: one.origin });
    await eventually(async () => (await text(`${dp.url}/r2`)) === '200 one', 'changed route follows', 1000);
    await cp.remove('r2');
    await eventually(async () => (await text(`${dp.url}/r2`)) === '404', 'deleted route stops', 1000);
    await cp.upsert({ id: 'r1', path: '/r1/*', upstream: one.origin, enabled: false });
    await eventually(async () => (await text(`${dp.url}/r1/x`)) === '404', 'disabled route stops', 1000);
    await cp.upsert({ id: 'r1', path: '/r1/*', upstream: one.origin, enabled: true });
    await eventually(async () => (await text(`${dp.url}/r1/x`)) === '200 one', 'enabled again', 1000);
    assert.equal(cp.snapshotsServed, fetchesBefore, 'consecutive versions were applied in place');
    await eventually(() => savedSnapshot(dir.path).version === cp.version, 'the applied version is saved');
    assert.equal(savedSnapshot(dir.path).source, 'control-plane');
  });

  test('a lost message (version gap) makes it fetch a snapshot', async () => {
    const fetchesBefore = cp.snapshotsServed;
    await cp.upsert({ id: 'lost', path: '/lost', upstream: two.origin }, { publish: false });
    await cp.upsert({ id: 'after-gap', path: '/after-gap', upstream: one.origin });
    await eventually(async () => (await text(`${dp.url}/lost`)) === '200 two', 'route of the lost message served', 1000);
    assert.equal(await text(`${dp.url}/after-gap`), '200 one');
    assert.ok(cp.snapshotsServed > fetchesBefore);
  });

  test('reload() fetches a snapshot now and reports the control plane version', async () => {
    const outcome = await dp.plane.reload();
    assert.equal(outcome.ok, true);
    assert.equal(outcome.ok && outcome.version, cp.version);
  });
});

describe('data plane following a control plane (stand-in): control plane away', () => {
  let one: LoopbackUpstream;
  let two: LoopbackUpstream;
  let cp: StandInControlPlane;
  let dp: Started | undefined;
  const dir = makeTempDir();

  before(async () => {
    one = await startTextUpstream('one');
    two = await startTextUpstream('two');
    cp = new StandInControlPlane();
    await cp.upsert({ id: 'svc', path: '/svc/*', upstream: one.origin });
  });

  after(async () => {
    await dp?.plane.close();
    await cp?.close();
    await Promise.all([one?.close(), two?.close()]);
    dir.remove();
  });

  test('keeps serving with 0 failed proxied requests while the control plane is down; converges within 2 s after it returns', async () => {
    dp = await startFollower(dir.path, cp.fetchSnapshot, cp);
    const url = dp.url;
    let stop = false;
    const failures: string[] = [];
    let served = 0;
    const loop = async (): Promise<void> => {
      while (!stop) {
        try {
          const res = await request(`${url}/svc/ping`, { timeoutMs: 3000 });
          if (res.status !== 200) failures.push(`${res.status} ${res.text}`);
          else served += 1;
        } catch (error) {
          failures.push(String(error));
        }
      }
    };
    const loops = [loop(), loop()];
    cp.setDown(true);
    // Changes the data plane cannot hear about: heartbeats stop, snapshots fail.
    await cp.upsert({ id: 'svc', path: '/svc/*', upstream: two.origin }, { publish: false });
    await cp.upsert({ id: 'late', path: '/late', upstream: two.origin }, { publish: false });
    // Past the 3 s silence window: the follower fetches, fails and retries meanwhile.
    await new Promise((r) => setTimeout(r, 4000));
    assert.equal(await text(`${url}/late`), '404', 'nothing changed while the control plane was away');
    cp.setDown(false);
    await eventually(async () => (await text(`${url}/late`)) === '200 two', 'converged after the control plane returned', 2000);
    stop = true;
    await Promise.all(loops);
    assert.deepEqual(failures, []);
    assert.ok(served > 10, `requests served during the outage: ${served}`);
    assert.equal(await text(`${url}/svc/x`), '200 two');
  });

  test('restarted while the control plane is down, it serves its saved snapshot; then converges', async () => {
    await dp?.plane.close();
    dp = undefined;
    assert.equal(savedSnapshot(dir.path).version, cp.version);
    cp.setDown(true);
    await cp.remove('late', { publish: false });
    dp = await startFollower(dir.path, cp.fetchSnapshot, cp);
    assert.equal(await text(`${dp.url}/svc/x`), '200 two');
    assert.equal(await text(`${dp.url}/late`), '200 two', 'the saved snapshot, not the control plane state');
    assert.equal((await request(`${dp.url}/health/ready`)).status, 200);
    cp.setDown(false);
    const url = dp.url;
    await eventually(async () => (await text(`${url}/late`)) === '404', 'converged to the control plane after it returned', 2000);
  });

  test('with neither a control plane nor a saved snapshot it is not ready until the control plane answers', async () => {
    const fresh = makeTempDir();
    cp.setDown(true);
    const lone = await startFollower(fresh.path, cp.fetchSnapshot, cp);
    try {
      const ready = await request(`${lone.url}/health/ready`);
      assert.equal(ready.status, 503);
      assert.equal(ready.json<{ checks: { config: string } }>().checks.config, 'DOWN');
      assert.equal((await request(`${lone.url}/svc/x`)).status, 503);
      cp.setDown(false);
      await eventually(async () => (await text(`${lone.url}/svc/x`)) === '200 two', 'served once the control plane answers', 2000);
      assert.equal((await request(`${lone.url}/health/ready`)).status, 200);
    } finally {
      await lone.plane.close();
      fresh.remove();
    }
  });
});

describe('data plane following a control plane over HTTP (createHttpSnapshotFetcher, stand-in endpoint)', () => {
  const token = 'cluster-token-for-tests-0123456789';
  let one: LoopbackUpstream;
  let cp: StandInControlPlane;
  let dp: Started;
  let cpUrl: string;
  const dir = makeTempDir();

  before(async () => {
    one = await startTextUpstream('one');
    cp = new StandInControlPlane();
    await cp.upsert({ id: 'h1', path: '/h1', upstream: one.origin });
    cpUrl = await cp.listen(token);
    dp = await startFollower(dir.path, createHttpSnapshotFetcher(cpUrl, token), cp);
  });

  after(async () => {
    await dp?.plane.close();
    await cp?.close();
    await one?.close();
    dir.remove();
  });

  test('fetches the snapshot with the bearer token and follows changes', async () => {
    assert.equal(await text(`${dp.url}/h1`), '200 one');
    await cp.upsert({ id: 'h2', path: '/h2', upstream: one.origin }, { publish: false });
    await cp.upsert({ id: 'h3', path: '/h3', upstream: one.origin });
    await eventually(async () => (await text(`${dp.url}/h2`)) === '200 one', 'gap filled over HTTP', 1000);
  });

  test('endpoint down: keeps serving, reload() says why; back on the same address: converges', async () => {
    const port = Number(new URL(cpUrl).port);
    await cp.stopListening();
    const outcome = await dp.plane.reload();
    assert.equal(outcome.ok, false);
    assert.match(outcome.ok ? '' : (outcome.errors[0]?.message ?? ''), /ECONNREFUSED/);
    assert.equal(await text(`${dp.url}/h1`), '200 one');
    await cp.upsert({ id: 'h4', path: '/h4', upstream: one.origin }, { publish: false });
    await cp.listen(token, port);
    await cp.publish({ kind: 'reloaded', version: cp.version });
    await eventually(async () => (await text(`${dp.url}/h4`)) === '200 one', 'converged over HTTP', 2000);
  });

  test('a wrong token is refused (401) and the token never appears in the error', async () => {
    const fetchWrong = createHttpSnapshotFetcher(cpUrl, 'wrong-token-value');
    await assert.rejects(fetchWrong(), (error: Error) => /401/.test(error.message) && !error.message.includes('wrong-token-value'));
  });

  test('bad arguments are refused naming the argument', () => {
    assert.throws(() => createHttpSnapshotFetcher('not a url', token), /controlPlaneUrl/);
    assert.throws(() => createHttpSnapshotFetcher('ftp://x', token), /controlPlaneUrl/);
    assert.throws(() => createHttpSnapshotFetcher('http://u:p@127.0.0.1', token), /controlPlaneUrl/);
    assert.throws(() => createHttpSnapshotFetcher(cpUrl, ''), /clusterToken/);
  });
});

describe('readiness with extra checks (one-process mode feeds database and Redis there)', () => {
  let cp: StandInControlPlane;
  let dp: Started;
  let redis: 'UP' | 'DOWN' = 'UP';
  const dir = makeTempDir();

  before(async () => {
    cp = new StandInControlPlane();
    dp = await startFollower(dir.path, cp.fetchSnapshot, cp, { extraReadiness: async () => ({ database: 'UP', redis }) });
  });

  after(async () => {
    await dp?.plane.close();
    await cp?.close();
    dir.remove();
  });

  test('extra checks are merged into checks; a DOWN one answers 503', async () => {
    const up = await request(`${dp.url}/health/ready`);
    assert.equal(up.status, 200);
    assert.deepEqual(up.json<{ checks: unknown }>().checks, { config: 'UP', upstreams: 'UP', database: 'UP', redis: 'UP' });
    redis = 'DOWN';
    const down = await request(`${dp.url}/health/ready`);
    assert.equal(down.status, 503);
    assert.deepEqual(down.json<{ status: string; checks: unknown }>(), { ...down.json(), status: 'DOWN', checks: { config: 'UP', upstreams: 'UP', database: 'UP', redis: 'DOWN' } });
    assert.equal((await request(`${dp.url}/health/deep`)).json<{ status: string }>().status, 'DOWN');
  });
});
