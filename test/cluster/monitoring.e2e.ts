import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readServerSentEvents, request, startUpstream, type LoopbackUpstream } from '@gateway/testing';
import { ProcessCluster } from './process-cluster';
import { eventually } from './stand-in-control-plane';

/*
 * Issue 12 end to end with real processes: a control plane, two data planes and a private
 * redis-server (./process-cluster.ts). Traffic with known statuses and latencies through both data
 * planes must show in the summary, the series and the stream with exact counts within 3 s of the
 * last answer (a bound on the wait, not a speed measurement); a stopped data plane turns stale.
 */

type Row = { routeId: string; requests: number; errorPercent: number; p50: number; p99: number };

describe('cluster telemetry: control plane, two data planes, Redis (processes)', () => {
  let cluster: ProcessCluster;
  let upstream: LoopbackUpstream;

  before(async () => {
    upstream = await startUpstream({
      handler: (req, res) => {
        const answer = (): void => {
          res.statusCode = req.url?.includes('err') ? 500 : 200;
          res.end('ok');
        };
        // Known latencies: /slow waits 120 ms upstream, the rest answer at once.
        if (req.url?.includes('slow')) setTimeout(answer, 120);
        else answer();
      },
    });
    cluster = await ProcessCluster.start({ dataPlanes: 2, label: 'e2e-monitoring' });
    // The measured route first, the readiness route second: once both data planes serve the
    // second, they serve the first, and no readiness probe ever counts on the measured one.
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'mon', path: '/mon/*', upstream: upstream.origin });
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'outage', path: '/outage/*', upstream: upstream.origin });
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'after', path: '/after/*', upstream: upstream.origin });
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'ready', path: '/ready/*', upstream: upstream.origin });
    await eventually(() => cluster.everyPlaneAnswers('/ready/x', '200 ok'), 'both data planes serve the routes', 10_000);
  });

  after(async () => {
    await cluster?.close();
    await upstream?.close();
  });

  const data = async <T>(urlPath: string): Promise<T> => (await cluster.api.expect(200, 'GET', urlPath)).json<{ data: T }>().data;

  test('known traffic through both data planes shows in summary, series and stream with exact counts within 3 s', async () => {
    const [one, two] = cluster.dataPlanes;
    const firstSecond = Math.floor(Date.now() / 1000) * 1000;
    for (let i = 0; i < 10; i += 1) assert.equal((await request(`${one.url}/mon/ok`)).status, 200);
    for (let i = 0; i < 2; i += 1) assert.equal((await request(`${one.url}/mon/err`)).status, 500);
    for (let i = 0; i < 5; i += 1) assert.equal((await request(`${two.url}/mon/ok`)).status, 200);
    for (let i = 0; i < 3; i += 1) assert.equal((await request(`${two.url}/mon/slow`)).status, 200);

    let row: Row | undefined;
    await eventually(
      async () => {
        row = (await data<{ routes: Row[] }>('/api/monitoring/summary?window=5m')).routes.find((r) => r.routeId === 'mon');
        return row?.requests === 20;
      },
      'the 20 requests in the summary',
      3000,
    );
    assert.equal(row!.errorPercent, 10);
    assert.ok(row!.p99 >= 120, `p99 ${row!.p99} ms covers the slow requests`);
    assert.ok(row!.p50 < 120, `p50 ${row!.p50} ms is a fast request`);

    const series = await data<{ points: Array<{ value: number }> }>('/api/monitoring/series?route=mon&metric=requests&step=1s');
    assert.equal(series.points.reduce((sum, p) => sum + p.value, 0), 20);
    const errors = await data<{ points: Array<{ value: number }> }>('/api/monitoring/series?route=mon&metric=errors&step=1s');
    assert.equal(errors.points.reduce((sum, p) => sum + p.value, 0), 2);

    // Resumed from before the traffic: the replayed frames carry every request once.
    const stream = await fetch(`${cluster.controlPlane.url}/api/monitoring/stream`, {
      headers: { authorization: `Bearer ${cluster.api.token}`, 'last-event-id': String(firstSecond - 2000) },
    });
    assert.equal(stream.status, 200);
    const latest = Math.floor(Date.now() / 1000) * 1000 - 1000;
    const frames = await readServerSentEvents(stream, (events) => events.some((e) => Number(e.id) >= latest));
    const monRequests = frames
      .map((e) => JSON.parse(e.data) as { routes: Array<{ routeId: string; requests: number }> })
      .reduce((sum, second) => sum + (second.routes.find((r) => r.routeId === 'mon')?.requests ?? 0), 0);
    assert.equal(monRequests, 20);
    assert.equal(Number(frames[0].id), firstSecond - 1000);
  });

  test('Redis restarted: at most the windows of the outage are lost, nothing after it', async () => {
    const [one, two] = cluster.dataPlanes;
    type Plane = { status: string };
    await cluster.redis.kill();
    // Traffic while the bus is away: its windows may be lost (dropped by the data planes).
    for (let i = 0; i < 4; i += 1) await request(`${one.url}/outage/x`);
    // Stale first, so that "live" below can only mean windows flow again over the new connection.
    await eventually(async () => (await data<Plane[]>('/api/monitoring/data-planes')).every((p) => p.status === 'stale'), 'both data planes stale while Redis is away', 10_000);
    await cluster.redis.restart();
    // Back once the control plane hears both data planes again.
    await eventually(
      async () => {
        const planes = await data<Plane[]>('/api/monitoring/data-planes');
        return planes.length === 2 && planes.every((p) => p.status === 'live');
      },
      'both data planes live again after Redis returned',
      10_000,
    );
    for (let i = 0; i < 6; i += 1) await request(`${one.url}/after/x`);
    for (let i = 0; i < 4; i += 1) await request(`${two.url}/after/x`);
    let rows: Row[] = [];
    await eventually(
      async () => {
        rows = (await data<{ routes: Row[] }>('/api/monitoring/summary?window=5m')).routes;
        return rows.find((r) => r.routeId === 'after')?.requests === 10;
      },
      'the 10 requests after the outage in the summary',
      3000,
    );
    const duringOutage = rows.find((r) => r.routeId === 'outage')?.requests ?? 0;
    assert.ok(duringOutage <= 4, `${duringOutage} of the outage's 4 requests counted`);
  });

  test('both data planes report; a stopped one turns stale', async () => {
    type Plane = { instanceId: string; status: string; address: string; configRevision: number };
    const planes = await data<Plane[]>('/api/monitoring/data-planes');
    assert.deepEqual(planes.map((p) => p.status), ['live', 'live']);
    assert.ok(planes.every((p) => p.configRevision >= 2));
    await cluster.dataPlanes[1].kill();
    await eventually(
      async () => (await data<Plane[]>('/api/monitoring/data-planes')).map((p) => p.status).sort().join() === 'live,stale',
      'one data plane stale after 3 missed windows',
      6000,
    );
  });
});
