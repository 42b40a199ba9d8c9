import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRoundRobinBalancer, startTextUpstream, type LoopbackUpstream, type RoundRobinBalancer } from '@gateway/testing';
import { ProcessCluster } from './process-cluster';
import { rollDataPlanesUnderLoad } from './rolling-update';
import { eventually } from './stand-in-control-plane';

/*
 * A rolling update with real processes (issue 17): three data planes following one control plane
 * over Redis, behind a round-robin TCP balancer that follows their readiness (/health/serving),
 * steady traffic through the balancer while each data plane in turn gets SIGTERM, drains, exits
 * and starts again. The drain delay (1 s here) is what lets the balancer take a plane out of
 * rotation before it stops accepting: not one request may fail.
 */

describe('rolling restart of three data planes behind a readiness-following balancer', () => {
  let upstream: LoopbackUpstream;
  let cluster: ProcessCluster;
  let balancer: RoundRobinBalancer;

  before(async () => {
    upstream = await startTextUpstream('rolled');
    cluster = await ProcessCluster.start({ dataPlanes: 3, label: 'e2e-rolling', dataPlaneEnv: { DRAIN_DELAY_SECONDS: '1', DRAIN_TIMEOUT_SECONDS: '10' } });
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'rolling', path: '/rolling/*', upstream: upstream.origin });
    await eventually(() => cluster.everyPlaneAnswers('/rolling/x', '200 rolled'), 'every data plane serves the route', 10_000);
    balancer = await startRoundRobinBalancer(cluster.dataPlanes.map((plane) => ({ host: '127.0.0.1', port: plane.port })));
    await eventually(() => balancer.ready().length === 3, 'the balancer has all three data planes in rotation', 10_000);
  });

  after(async () => {
    await balancer?.close();
    await cluster?.close();
    await upstream?.close();
  });

  test('SIGTERM, exit 0 and start again, one data plane at a time, under steady load: 0 failed requests', async () => {
    const { exitCodes, sent, failures } = await rollDataPlanesUnderLoad(cluster, balancer, '/rolling/x', 'rolled');
    assert.deepEqual(exitCodes, [0, 0, 0], 'every data plane exits 0 after its drain');
    assert.deepEqual(failures, []);
    assert.equal(balancer.refused, 0, 'no connection found the balancer without a backend or was refused by one');
    assert.ok(sent >= 50, `traffic flowed throughout (${sent} requests)`);
    assert.deepEqual(await cluster.servedByEach('/rolling/x'), ['200 rolled', '200 rolled', '200 rolled'], 'every restarted data plane serves again');
  });
});
