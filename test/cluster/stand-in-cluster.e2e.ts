import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, request, startRoundRobinBalancer, startTextUpstream, withTimeout, type LoopbackUpstream, type RoundRobinBalancer, type TestDatabase } from '@gateway/testing';
import { openSocket, startEchoUpstream, type EchoUpstream, type OpenedSocket } from '../proxy/websocket-echo';
import { ageDeletedRoute, FAST_PURGE_ENV, purged, purgeLease } from './leased-purge';
import { ProcessCluster } from './process-cluster';
import { rollDataPlanesUnderLoad } from './rolling-update';
import { eventually } from './stand-in-control-plane';

/*
 * The local stand-in for a production cluster (issue 17), all real processes: two control planes
 * on one PostgreSQL behind a readiness-following balancer (the API's ingress, and the data planes'
 * CONTROL_PLANE_URL), three data planes following them over Redis behind another balancer.
 * A rolling restart of the data planes under steady load loses no request and closes their
 * WebSockets with 1001 at drain start; SIGKILL of the control plane holding the purge lease keeps
 * the API answering through the other, which takes the lease over within seconds.
 */

async function waitFor<T>(what: string, check: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('stand-in cluster: two control planes on PostgreSQL, three data planes, Redis, balancers', () => {
  let database: TestDatabase;
  let upstream: LoopbackUpstream;
  let sockets: EchoUpstream;
  let cluster: ProcessCluster;
  let balancer: RoundRobinBalancer;
  /** The first control plane's lease holder id (it took the lease alone). */
  let firstHolder: string | undefined;

  before(async () => {
    database = await createTestDatabase('stand_in_cluster');
    upstream = await startTextUpstream('stood');
    sockets = await startEchoUpstream();
    cluster = await ProcessCluster.start({
      label: 'e2e-stand-in',
      dataPlanes: 3,
      controlPlanes: 2,
      databaseUrl: database.url,
      controlPlaneEnv: FAST_PURGE_ENV,
      dataPlaneEnv: { DRAIN_DELAY_SECONDS: '1', DRAIN_TIMEOUT_SECONDS: '10' },
      // The first control plane takes the purge lease before the second starts: its holder id tells the two apart.
      afterFirstControlPlane: () =>
        waitFor('the first control plane holding the purge lease', () => purgeLease(database)).then((lease) => {
          firstHolder = lease.holder;
        }),
    });
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'stood', path: '/stood/*', upstream: upstream.origin });
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'socket', path: '/socket', upstream: sockets.origin, stripPath: false, websocket: true });
    await eventually(() => cluster.everyPlaneAnswers('/stood/x', '200 stood'), 'every data plane serves the route', 15_000);
    balancer = await startRoundRobinBalancer(cluster.dataPlanes.map((plane) => ({ host: '127.0.0.1', port: plane.port })));
    await eventually(() => balancer.ready().length === 3, 'the balancer has all three data planes in rotation', 15_000);
  });

  after(async () => {
    await balancer?.close();
    await cluster?.close();
    await upstream?.close();
    await sockets?.close();
    await database?.drop();
  });

  test('rolling restart of the data planes under steady load: 0 lost requests, each WebSocket closed with 1001 at drain start', async () => {
    const opened: OpenedSocket[] = [];
    const { exitCodes, sent, failures } = await rollDataPlanesUnderLoad(cluster, balancer, '/stood/x', 'stood', async (index) => {
      // A connection straight to the data plane about to drain.
      const socket = await openSocket(`ws://127.0.0.1:${cluster.dataPlanes[index]?.port}/socket`);
      socket.socket.send(`plane ${index}`);
      assert.equal(String(await socket.next()), `plane ${index}`);
      opened.push(socket);
    });
    assert.deepEqual(exitCodes, [0, 0, 0], 'every data plane exits 0 after its drain');
    assert.deepEqual(failures, []);
    assert.equal(balancer.refused, 0, 'no connection found the balancer without a backend or was refused by one');
    assert.ok(sent >= 50, `traffic flowed throughout (${sent} requests)`);
    const codes = await Promise.all(opened.map((socket) => withTimeout(socket.closed, 10_000, 'a WebSocket was not closed by its drain')));
    assert.deepEqual(codes, [1001, 1001, 1001]);
    assert.deepEqual(await cluster.servedByEach('/stood/x'), ['200 stood', '200 stood', '200 stood'], 'every restarted data plane serves again');
  });

  test('SIGKILL of the lease-holding control plane: the API answers through the other, which resumes the leased work within seconds', async () => {
    // The holder purges while both run.
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'old-one', path: '/old-one', upstream: upstream.origin });
    await cluster.api.expect(204, 'DELETE', '/api/routes/old-one');
    await ageDeletedRoute(database, 'old-one');
    await waitFor('the holder to purge old-one', () => purged(database, 'old-one'));
    const before = await purgeLease(database);
    assert.ok(before !== undefined && firstHolder !== undefined);
    // The lease outlives a holder that stops renewing by 1 s only (LEASE_TTL): on a loaded machine a
    // stall of the first control plane can have handed it to the second already. The holder is killed.
    const holder = before.holder === firstHolder ? 0 : 1;
    const survivor = cluster.controlPlanes[1 - holder];
    assert.ok(survivor !== undefined);
    await cluster.killControlPlane(holder);
    // Straight to the survivor at once, and through the ingress once its probe took the dead one out.
    const direct = await request(`${survivor.url}/api/routes`, { headers: { authorization: `Bearer ${cluster.api.token}` } });
    assert.equal(direct.status, 200);
    await eventually(() => cluster.controlPlaneBalancer?.ready().length === 1, 'the ingress takes the killed control plane out', 10_000);
    await cluster.api.expect(200, 'GET', '/api/routes');

    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'old-two', path: '/old-two', upstream: upstream.origin });
    await cluster.api.expect(204, 'DELETE', '/api/routes/old-two');
    await ageDeletedRoute(database, 'old-two');
    // LEASE_TTL is 1 s here: "within seconds" is the lease outliving its dead holder, then one purge interval.
    await waitFor('the survivor to take over the purge', () => purged(database, 'old-two'), 15_000);
    const after = await purgeLease(database);
    assert.ok(after !== undefined && after.token > before.token, `token ${after?.token} after ${before.token}`);
    assert.notEqual(after.holder, before.holder);

    // The data planes follow the survivor: a route created now is served by all three.
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'after-failover', path: '/after/*', upstream: upstream.origin });
    await eventually(() => cluster.everyPlaneAnswers('/after/x', '200 stood'), 'every data plane serves a route made after the failover', 15_000);
  });
});
