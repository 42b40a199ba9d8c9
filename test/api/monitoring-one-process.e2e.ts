import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readServerSentEvents, request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { ADMIN, caller, eventually, login, type Call } from './auth-fixtures';

/*
 * The monitoring API through the one-process gateway (both planes, the in-process bus): traffic
 * with known statuses through the data plane shows in the summary, the series and the data-plane
 * list, with exact counts, within 3 s.
 */
describe('monitoring API in the one-process gateway', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  let call: Call;
  let token: string;

  before(async () => {
    upstream = await startUpstream({
      handler: (req, res) => {
        res.statusCode = req.url?.includes('fail') ? 500 : 200;
        res.end('ok');
      },
    });
    gateway = await startGatewayProcess({
      role: 'all',
      config: `version: "1.0.0"
routes:
  - { id: shop, path: /shop/*, upstream: "${upstream.origin}" }
  - { id: rl, path: /rl/*, upstream: "${upstream.origin}", rateLimit: { enabled: true, max: 1, windowMs: 600000 } }
`,
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, JWT_SECRET: 'one-process-monitoring-secret-0123456789ab' },
    });
    call = caller(gateway);
    token = await login(call, ADMIN);
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const data = async <T>(urlPath: string): Promise<T> => {
    const res = await call('GET', urlPath, { token });
    assert.equal(res.status, 200, `${urlPath}: ${res.text}`);
    return res.json<{ success: true; data: T }>().data;
  };

  test('known traffic shows in the summary, the series and the data planes with exact counts within 3 s', async () => {
    for (let i = 0; i < 4; i += 1) assert.equal((await request(`${gateway.url}/shop/ok`)).status, 200);
    assert.equal((await request(`${gateway.url}/shop/fail`)).status, 500);
    for (let i = 0; i < 3; i += 1) await request(`${gateway.url}/rl/x`);
    type Summary = { total: { requests: number }; routes: Array<{ routeId: string; requests: number; errorPercent: number; rateLimitHits: number; p50: number }> };
    let summary: Summary | undefined;
    await eventually(
      async () => {
        summary = await data<Summary>('/api/monitoring/summary?window=1m');
        return summary.total.requests >= 8;
      },
      'the traffic in the summary',
      3000,
    );
    const row = (id: string) => summary!.routes.find((r) => r.routeId === id);
    assert.equal(summary!.total.requests, 8);
    assert.deepEqual([row('shop')?.requests, row('shop')?.errorPercent], [5, 20]);
    assert.deepEqual([row('rl')?.requests, row('rl')?.rateLimitHits], [3, 2]);
    assert.ok(row('shop')!.p50 > 0);

    const series = await data<{ points: Array<{ value: number }> }>('/api/monitoring/series?route=shop&metric=requests&step=1s');
    assert.equal(series.points.reduce((sum, p) => sum + p.value, 0), 5);
    assert.equal(series.points.length, 300, 'five minutes of seconds by default');

    const planes = await data<Array<{ status: string; configRevision: number; address: string }>>('/api/monitoring/data-planes');
    assert.equal(planes.length, 1);
    assert.equal(planes[0].status, 'live');
  });

  test('bad queries are refused naming the field; the API needs an admin token', async () => {
    const tooLong = await call('GET', '/api/monitoring/summary?window=20m', { token });
    assert.equal(tooLong.status, 400);
    assert.match(tooLong.text, /window/);
    const metric = await call('GET', '/api/monitoring/series?metric=nope', { token });
    assert.equal(metric.status, 400);
    assert.match(metric.text, /metric must be one of/);
    const reversed = await call('GET', '/api/monitoring/series?metric=requests&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', { token });
    assert.equal(reversed.status, 400);
    assert.match(reversed.text, /"field":"from"/);
    assert.equal((await call('GET', '/api/monitoring/summary')).status, 401);
  });

  const openStream = (bearer: string, lastEventId?: string) =>
    fetch(`${gateway.url}/api/monitoring/stream`, { headers: { authorization: `Bearer ${bearer}`, ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) } });

  test('the stream sends one frame a second with contiguous ids; traffic shows within 3 s; Last-Event-ID resumes', async () => {
    const res = await openStream(token);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const sentFrom = Math.floor(Date.now() / 1000) * 1000;
    for (let i = 0; i < 2; i += 1) await request(`${gateway.url}/shop/stream`);
    // The two requests may fall into two seconds (a boundary between them): count them over the
    // frames of the seconds they were sent in (earlier frames hold the earlier test's traffic).
    const shopRequests = (e: { id?: string; data: string }): number => (Number(e.id) < sentFrom ? 0 : (JSON.parse(e.data) as { routes: Array<{ routeId: string; requests: number }> }).routes.find((r) => r.routeId === 'shop')?.requests ?? 0);
    const counted = (seen: Array<{ id?: string; data: string }>): number => seen.reduce((sum, e) => sum + shopRequests(e), 0);
    // Counted in frames, not wall time: the traffic is in the first frames of the seconds from the one
    // it was sent in (3 s + the frame in progress). Frames of earlier seconds (a loaded machine settles
    // seconds later, so the stream may open a few seconds behind) do not count against that bound.
    const framesSinceSent = (seen: Array<{ id?: string }>): number => seen.filter((e) => Number(e.id) >= sentFrom).length;
    const events = await readServerSentEvents(res, (seen) => counted(seen) >= 2 || framesSinceSent(seen) >= 5);
    assert.equal(counted(events), 2, `the two requests, exactly, in ${framesSinceSent(events)} frames from the second they were sent in`);
    const ids = events.map((e) => Number(e.id));
    assert.ok(events.every((e) => e.event === 'second'));
    for (let i = 1; i < ids.length; i += 1) assert.equal(ids[i] - ids[i - 1], 1000, 'contiguous seconds');

    const from = ids[0] - 3000;
    const resumed = await openStream(token, String(from));
    const replay = await readServerSentEvents(resumed, (seen) => seen.length >= 3);
    assert.deepEqual(replay.slice(0, 3).map((e) => Number(e.id)), [from + 1000, from + 2000, from + 3000], 'the missed seconds first');
  });

  test('the stream ends with an end event when its token is revoked (logout)', async () => {
    const own = await login(call, ADMIN);
    const res = await openStream(own);
    assert.equal(res.status, 200);
    const loggedOut = await call('POST', '/api/auth/logout', { token: own });
    assert.equal(loggedOut.status, 200);
    const events = await readServerSentEvents(res, (seen) => seen.some((e) => e.event === 'end'));
    assert.deepEqual(JSON.parse(events.at(-1)!.data), { reason: 'token_revoked' });
    assert.equal((await fetch(`${gateway.url}/api/monitoring/stream`)).status, 401, 'no token, no stream (never a token in the URL)');
    assert.equal((await fetch(`${gateway.url}/api/monitoring/stream?token=${own}`, { headers: { authorization: `Bearer ${token}` } })).status, 400);
  });
});
