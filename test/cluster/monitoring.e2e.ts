import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readServerSentEvents, request, startUpstream, type LoopbackUpstream, type ServerSentEvent } from '@gateway/testing';
import { ProcessCluster } from './process-cluster';
import { eventually } from './stand-in-control-plane';

/*
 * Issue 12 end to end with real processes: a control plane, two data planes and a private
 * redis-server (./process-cluster.ts). Traffic with known statuses and latencies through both data
 * planes must show in the summary, the series and the stream with exact counts within 3 s of the
 * last answer (a bound on the wait, not a speed measurement); Redis restarted under an open stream
 * loses at most the outage's windows; the merged sketch's quantiles are within 2 % of the exact
 * ones; a stopped data plane turns stale.
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
        // Known latencies: /slow waits 120 ms upstream, /wait-<ms> waits <ms>, the rest answer at once.
        const wait = /\/wait-(\d+)$/.exec(req.url ?? '');
        if (wait) setTimeout(answer, Number(wait[1]));
        else if (req.url?.includes('slow')) setTimeout(answer, 120);
        else answer();
      },
    });
    cluster = await ProcessCluster.start({ dataPlanes: 2, label: 'e2e-monitoring' });
    // The measured route first, the readiness route second: once both data planes serve the
    // second, they serve the first, and no readiness probe ever counts on the measured one.
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'mon', path: '/mon/*', upstream: upstream.origin });
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'outage', path: '/outage/*', upstream: upstream.origin });
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'after', path: '/after/*', upstream: upstream.origin });
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'lat', path: '/lat/*', upstream: upstream.origin });
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

  test('Redis restarted mid-stream: at most the windows of the outage are lost, nothing after it, in the summary and the open stream', async () => {
    const [one, two] = cluster.dataPlanes;
    type Plane = { status: string };
    type Frame = { routes: Array<{ routeId: string; requests: number }> };
    const requestsIn = (frames: ServerSentEvent[], routeId: string): number =>
      frames.reduce((sum, e) => sum + (e.event === 'second' ? ((JSON.parse(e.data) as Frame).routes.find((r) => r.routeId === routeId)?.requests ?? 0) : 0), 0);
    // A live stream (no Last-Event-ID) open across the outage.
    const stream = await fetch(`${cluster.controlPlane.url}/api/monitoring/stream`, { headers: { authorization: `Bearer ${cluster.api.token}` } });
    assert.equal(stream.status, 200);
    let trafficEnd = Number.POSITIVE_INFINITY;
    const reading = readServerSentEvents(stream, (events) => requestsIn(events, 'after') >= 10 || Number(events.at(-1)?.id) >= trafficEnd + 3000);
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
    trafficEnd = Date.now();
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

    const frames = await reading;
    assert.equal(requestsIn(frames, 'after'), 10, 'the live frames after the outage carry every request, within 3 s');
    assert.ok(requestsIn(frames, 'outage') <= 4);
    const ids = frames.map((e) => Number(e.id));
    for (let i = 1; i < ids.length; i += 1) assert.equal(ids[i] - ids[i - 1], 1000, 'one frame a second through the outage: contiguous ids');
  });

  test('quantiles of the merged sketch of both data planes are within 2 % of the exact ones', async () => {
    const [one, two] = cluster.dataPlanes;
    // 40 known upstream delays from 50 ms to about 700 ms, half through each data plane, at once.
    const delays = Array.from({ length: 40 }, (_, k) => Math.round(50 * 1.07 ** k));
    const seen = await Promise.all(
      delays.map(async (ms, k) => {
        const started = performance.now();
        const res = await request(`${(k % 2 === 0 ? one : two).url}/lat/wait-${ms}`);
        assert.equal(res.status, 200);
        return performance.now() - started;
      }),
    );
    let row: Row & { p95: number } = { routeId: 'lat', requests: 0, errorPercent: 0, p50: 0, p95: 0, p99: 0 };
    await eventually(
      async () => {
        row = (await data<{ routes: Array<Row & { p95: number }> }>('/api/monitoring/summary?window=5m')).routes.find((r) => r.routeId === 'lat') ?? row;
        return row.requests === 40;
      },
      'the 40 requests in the summary',
      3000,
    );
    // What a data plane measured for a request lies between the upstream's delay and what the
    // client saw, so the exact quantile (rank q·(n-1), the sketch's convention) lies between the
    // same quantiles of both; the sketch's answer must be within 2 % of that band.
    const at = (values: number[], q: number): number => [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))]!;
    for (const [q, reported] of [[0.5, row.p50], [0.95, row.p95], [0.99, row.p99]] as const) {
      const low = at(delays, q);
      const high = at(seen, q);
      assert.ok(reported >= low * 0.98 && reported <= high * 1.02, `p${q * 100} ${reported} ms within 2 % of [${low}, ${high.toFixed(1)}] ms`);
    }
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
