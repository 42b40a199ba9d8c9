import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, startTextUpstream, type LoopbackUpstream } from '@gateway/testing';
import { ProcessCluster, startTraffic } from './process-cluster';
import { eventually } from './stand-in-control-plane';

/*
 * The cluster proof with real processes: `gateway start --role control-plane` and two
 * `gateway start --role data-plane` over a private redis-server (./process-cluster.ts), real
 * loopback upstreams, routes changed through the management API. Deadlines ("within 1 s", "within
 * 2 s after they return") are requirements, polled with a bound from the moment the API answered
 * or the process was back; nothing here measures speed.
 */

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** proxy.yml of the control plane with file routes (reconciled when it starts). */
function fileRoutes(routes: ReadonlyArray<{ id: string; path: string; upstream: string }>): string {
  return ['version: "1.0.0"', 'routes:', ...routes.map((r) => `  - { id: ${r.id}, path: "${r.path}", upstream: "${r.upstream}" }`), ''].join('\n');
}

describe('a real cluster: control plane, two data planes, Redis (processes)', () => {
  let cluster: ProcessCluster;
  let one: LoopbackUpstream;
  let two: LoopbackUpstream;

  /** Both data planes answer `expected` on `urlPath` within `ms`. */
  const bothWithin = (ms: number, urlPath: string, expected: string, what: string): Promise<void> =>
    eventually(() => cluster.everyPlaneAnswers(urlPath, expected), `${what}: both data planes answer "${expected}" on ${urlPath}`, ms);

  before(async () => {
    [one, two] = await Promise.all([startTextUpstream('one'), startTextUpstream('two')]);
    cluster = await ProcessCluster.start({ dataPlanes: 2 });
    // The route every traffic loop uses; served by both before any test starts.
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'base', path: '/base/*', upstream: one.origin });
    await bothWithin(5000, '/base/x', '200 one', 'base route');
  });

  after(async () => {
    await cluster?.close();
    await Promise.all([one?.close(), two?.close()]);
  });

  test('create, replace (PUT), patch (new upstream and path), toggle off and on, delete: both data planes follow within 1 s', async () => {
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'crud', path: '/crud/*', upstream: one.origin });
    await bothWithin(1000, '/crud/x', '200 one', 'created');

    await cluster.api.expect(200, 'PUT', '/api/routes/crud', { path: '/crud/*', upstream: two.origin });
    await bothWithin(1000, '/crud/x', '200 two', 'replaced with a new upstream');

    await cluster.api.expect(200, 'PATCH', '/api/routes/crud', { path: '/moved/*', upstream: one.origin });
    await bothWithin(1000, '/moved/x', '200 one', 'patched to a new path and upstream');
    assert.deepEqual(await cluster.servedByEach('/crud/x'), ['404', '404'], 'the old path is no longer served');

    const off = await cluster.api.expect(200, 'POST', '/api/routes/crud/toggle');
    assert.equal(off.json<{ data: { enabled: boolean } }>().data.enabled, false);
    await bothWithin(1000, '/moved/x', '404', 'toggled off');

    const on = await cluster.api.expect(200, 'POST', '/api/routes/crud/toggle');
    assert.equal(on.json<{ data: { enabled: boolean } }>().data.enabled, true);
    await bothWithin(1000, '/moved/x', '200 one', 'toggled on');

    await cluster.api.expect(204, 'DELETE', '/api/routes/crud');
    await bothWithin(1000, '/moved/x', '404', 'deleted');
  });

  test('Redis killed while traffic flows: 0 failed proxied requests; a change made meanwhile is served by both within 2 s after Redis is back', async () => {
    const traffic = startTraffic(cluster.dataPlanes, '/base/x', 'one');
    await sleep(300);
    await cluster.redis.kill();
    await sleep(500);
    // The control plane commits it; its publish fails (Redis is away) and is only logged.
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'during-redis-outage', path: '/redis-outage/*', upstream: two.origin });
    await sleep(500);
    await cluster.redis.restart();
    await bothWithin(2000, '/redis-outage/x', '200 two', 'converged after Redis returned');
    const { sent, failures } = await traffic.stop();
    assert.deepEqual(failures, []);
    assert.ok(sent >= 20, `traffic flowed throughout (${sent} requests)`);

    // Messages flow again once the control plane's publisher is connected (its readiness pings it).
    await eventually(async () => (await request(`${cluster.controlPlane.url}/health/ready`)).status === 200, 'control plane ready with Redis', 5000);
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'after-redis-outage', path: '/after-redis/*', upstream: two.origin });
    await bothWithin(1000, '/after-redis/x', '200 two', 'a change after Redis returned');
  });

  test('control plane killed (SIGKILL) while traffic flows: 0 failed proxied requests; once restarted both converge within 2 s and follow a change within 1 s', async () => {
    const traffic = startTraffic(cluster.dataPlanes, '/base/x', 'one');
    await sleep(300);
    await cluster.killControlPlane();
    // While it is down its proxy.yml gains a route: reconciled when it starts, a change the data
    // planes can only learn from a snapshot of the returned control plane.
    cluster.controlPlane.writeConfig(fileRoutes([{ id: 'from-file', path: '/from-file/*', upstream: two.origin }]));
    // Past the data planes' silence window (3 s): their snapshot fetches fail and are retried.
    await sleep(3500);
    assert.deepEqual(await cluster.servedByEach('/from-file/x'), ['404', '404']);
    await cluster.restartControlPlane();
    await bothWithin(2000, '/from-file/x', '200 two', 'converged after the control plane returned');
    const { sent, failures } = await traffic.stop();
    assert.deepEqual(failures, []);
    assert.ok(sent >= 100, `traffic flowed throughout (${sent} requests)`);

    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'after-cp-restart', path: '/after-cp/*', upstream: one.origin });
    await bothWithin(1000, '/after-cp/x', '200 one', 'a change after the control plane returned');
  });

  test('a data plane restarted while the control plane is down serves its saved snapshot, then converges when the control plane returns', async () => {
    await cluster.killControlPlane();
    cluster.controlPlane.writeConfig(fileRoutes([
      { id: 'from-file', path: '/from-file/*', upstream: two.origin },
      { id: 'file-two', path: '/file-two/*', upstream: one.origin },
    ]));
    const restarted = await cluster.restartDataPlane(1);
    await restarted.waitForOutput('serving the saved route snapshot until the control plane answers');
    for (const [urlPath, expected] of [['/base/x', 'one'], ['/from-file/x', 'two'], ['/after-cp/x', 'one'], ['/after-redis/x', 'two']] as const) {
      const res = await request(`${restarted.url}${urlPath}`);
      assert.equal(`${res.status} ${res.text}`, `200 ${expected}`, `the restarted data plane serves ${urlPath} from its saved snapshot`);
    }
    assert.equal((await request(`${restarted.url}/moved/x`)).status, 404, 'a route deleted before the restart stays deleted');
    const ready = await request(`${restarted.url}/health/ready`);
    assert.equal(ready.status, 200, ready.text);

    await cluster.restartControlPlane();
    await bothWithin(2000, '/file-two/x', '200 one', 'converged after the control plane returned');
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'after-dp-restart', path: '/after-dp/*', upstream: two.origin });
    await bothWithin(1000, '/after-dp/x', '200 two', 'a change after both restarts');
  });
});
