import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS_CHANNEL, EVENTS_CHANNEL, type CircuitBreakerOpenedEvent, type RouteCommandMessage } from '@gateway/events';
import type { SignedBus } from '@gateway/events';
import { request, startUpstream, type ClientResponse, type LoopbackUpstream } from '@gateway/testing';
import { ADMIN, ADMIN_ENV, caller, login, type Call } from '../api/auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../api/control-plane-process';
import { signedRedisBus } from '../api/signed-redis-bus';
import { startFollowingDataPlane, type FollowingDataPlane } from './following-data-plane';
import { eventually } from './stand-in-control-plane';

/*
 * Issues 4 and 5 end to end: the REAL control plane (its start() with `listen`, in a child process,
 * REDIS_URL + CLUSTER_TOKEN + JWT_SECRET + a unique channel prefix) and two real data planes
 * (in-process start() with a signed RedisBus and the HTTP snapshot fetcher) following it over the real
 * Redis. Every /api/routes/:id/... operation goes through the bus to both data planes.
 */
const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const CLUSTER_TOKEN = 'route-operations-cluster-token-0123456789';

type DataPlane = FollowingDataPlane<SignedBus>;

type Envelope<T> = { success: boolean; data: T; error?: string; code?: string; details?: Record<string, unknown> };
type BreakerView = { name: string; kind: string; state: string; failures: number; successes: number; lastFailureTime: string | null };
type BreakerAnswer = {
  routeId: string;
  enabled: boolean;
  name: string | null;
  kind: string | null;
  state: string | null;
  failures: number;
  successes: number;
  lastFailureTime: string | null;
  dataPlanes: Array<{ instanceId: string; at: string; breaker: BreakerView | null }>;
  missing: string[];
};

describe('route operations across two data planes (real control plane, real Redis)', () => {
  const prefix = `e2e-route-ops:${process.pid}:${randomBytes(4).toString('hex')}:`;
  let upstream: LoopbackUpstream;
  let cp: ControlPlaneProcess;
  let call: Call;
  let token: string;
  let userToken: string;
  let events: SignedBus;
  const opened: CircuitBreakerOpenedEvent[] = [];
  const commands: RouteCommandMessage[] = [];
  const planes: DataPlane[] = [];
  /** What the upstream's /health answers (the health-check route's target). */
  let healthStatus = 200;

  const api = <T>(method: string, urlPath: string, options: { body?: unknown; token?: string } = {}) =>
    call(method, urlPath, { token: options.token ?? token, body: options.body }).then((res) => ({ res, body: res.status === 204 ? undefined : res.json<Envelope<T>>() }));
  const proxy = (dp: DataPlane, p: string): Promise<ClientResponse> => request(`${dp.url}${p}`, { timeoutMs: 3000 });
  const upstreamCalls = (prefixPath: string): number => upstream.requests.filter((r) => r.url.startsWith(prefixPath)).length;
  const ids = (): string[] => planes.map((dp) => dp.plane.instanceId).sort();

  before(async () => {
    upstream = await startUpstream({
      handler: (req, res) => {
        if (req.url === '/health') res.statusCode = healthStatus;
        else if (req.url?.startsWith('/flaky')) res.statusCode = 500;
        res.end('ok');
      },
    });
    events = signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN);
    await events.subscribe<CircuitBreakerOpenedEvent>(EVENTS_CHANNEL, (e) => opened.push(e));
    await events.subscribe<RouteCommandMessage>(COMMANDS_CHANNEL, (c) => commands.push(c));
    // The admin tier below the general one, so a response's X-RateLimit-Limit says which tier counted it.
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, REDIS_URL, CLUSTER_TOKEN, REDIS_CHANNEL_PREFIX: prefix, API_RATE_LIMIT_ADMIN_MAX: '5000' } });
    call = caller(cp);
    token = await login(call, ADMIN);
    const user = { email: 'operator@example.com', password: 'a long and quiet afternoon 42' };
    assert.equal((await api('POST', '/api/users', { body: { ...user, role: 'user' } })).res.status, 201);
    userToken = await login(call, user);

    const routes = [
      { id: 'cb', path: '/cb/*', upstream: `${upstream.origin}/cb`, circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 10, timeout: 60000 } },
      { id: 'flaky', path: '/flaky/*', upstream: `${upstream.origin}/flaky`, retry: { enabled: false, attempts: 0 }, circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 2, timeout: 60000 } },
      { id: 'rl', path: '/rl/*', upstream: upstream.origin, rateLimit: { enabled: true, max: 3, windowMs: 600000 } },
      { id: 'hc', path: '/hc/*', upstream: upstream.origin, healthCheck: { enabled: true, url: `${upstream.origin}/health`, interval: 200, timeout: 150, unhealthyThreshold: 1, healthyThreshold: 1 } },
      { id: 'cached', path: '/cached/*', upstream: upstream.origin, cache: { enabled: true, ttl: 60000 } },
      { id: 'plain', path: '/plain/*', upstream: upstream.origin },
      { id: 'gone', path: '/gone/*', upstream: upstream.origin, circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 10, timeout: 60000 } },
    ];
    for (const route of routes) assert.equal((await api('POST', '/api/routes', { body: route })).res.status, 201, route.id);
    assert.equal((await api('DELETE', '/api/routes/gone')).res.status, 204);

    for (let i = 0; i < 2; i += 1) {
      const bus = signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN, `route-ops-${i}`);
      planes.push(await startFollowingDataPlane(bus, cp.url, CLUSTER_TOKEN, `dp-${i}`));
    }
    await eventually(async () => (await Promise.all(planes.map((dp) => proxy(dp, '/plain/x')))).every((r) => r.status === 200), 'both data planes serve the routes', 5000);
  });

  after(async () => {
    for (const dp of planes) await dp.close();
    await cp?.stop();
    await events?.close();
    await upstream?.close();
  });

  test('401 without a token, 403 without the admin role, on every operation; all of them count in the admin tier (decision 21)', async () => {
    const operations: Array<[string, string]> = [
      ['GET', '/api/routes/cb/circuit-breaker'],
      ['POST', '/api/routes/cb/circuit-breaker/trip'],
      ['POST', '/api/routes/cb/circuit-breaker/reset'],
      ['GET', '/api/routes/rl/rate-limit'],
      ['GET', '/api/routes/hc/health'],
      ['DELETE', '/api/routes/cached/cache'],
    ];
    for (const [method, urlPath] of operations) {
      const anonymous = await call(method, urlPath);
      assert.equal(anonymous.status, 401, `${method} ${urlPath}`);
      assert.deepEqual(anonymous.json(), { success: false, error: 'Unauthorized', code: 'UNAUTHORIZED' });
      const user = await call(method, urlPath, { token: userToken });
      assert.equal(user.status, 403, `${method} ${urlPath}`);
      assert.equal(user.json()['code'], 'FORBIDDEN');
      assert.equal(user.headers['x-ratelimit-limit'], '5000', `${method} ${urlPath} is an admin resource`);
    }
  });

  test('404 ROUTE_NOT_FOUND for an unknown or deleted route; nothing is sent to the data planes', async () => {
    for (const [method, urlPath] of [
      ['GET', '/api/routes/nope/circuit-breaker'],
      ['POST', '/api/routes/nope/circuit-breaker/trip'],
      ['POST', '/api/routes/gone/circuit-breaker/trip'],
      ['GET', '/api/routes/gone/rate-limit'],
      ['GET', '/api/routes/nope/health'],
      ['DELETE', '/api/routes/gone/cache'],
    ] as const) {
      const { res, body } = await api(method, urlPath);
      assert.equal(res.status, 404, `${method} ${urlPath}`);
      assert.deepEqual(body, { success: false, error: 'Route not found', code: 'ROUTE_NOT_FOUND' });
    }
    // A command for them would have reached this subscriber along with the probe published after them.
    assert.equal((await api('GET', '/api/routes/plain/circuit-breaker')).res.status, 200);
    await eventually(() => commands.some((c) => c.routeId === 'plain'), 'the probe command', 2000);
    assert.deepEqual(commands.filter((c) => c.routeId === 'nope' || c.routeId === 'gone'), []);
  });

  test('validation errors name the parameter or field', async () => {
    const cases: Array<[string, string, unknown, string, string]> = [
      ['GET', '/api/routes/rl/rate-limit?top=0', undefined, 'top', 'top must be an integer between 1 and 100'],
      ['GET', '/api/routes/rl/rate-limit?top=abc', undefined, 'top', 'top must be an integer between 1 and 100'],
      ['GET', '/api/routes/rl/rate-limit?limit=5', undefined, 'limit', 'property limit should not exist'],
      ['GET', '/api/routes/cb/circuit-breaker?verbose=1', undefined, 'verbose', 'property verbose should not exist'],
      ['POST', '/api/routes/cb/circuit-breaker/trip', { duration: 30 }, 'duration', 'property duration should not exist'],
      ['DELETE', '/api/routes/cached/cache?all=true', undefined, 'all', 'property all should not exist'],
    ];
    for (const [method, urlPath, body, field, message] of cases) {
      const answer = await api(method, urlPath, { body });
      assert.equal(answer.res.status, 400, `${method} ${urlPath}`);
      assert.equal(answer.body?.code, 'VALIDATION_ERROR');
      assert.deepEqual(answer.body?.details, { fields: [{ field, message, code: 'VALIDATION_ERROR' }] }, `${method} ${urlPath}`);
    }
  });

  test('trip reaches both data planes (503 without calling the upstream), GET aggregates and lists both, /health/deep lists it; reset restores both', async () => {
    const tripped = await api<BreakerAnswer>('POST', '/api/routes/cb/circuit-breaker/trip');
    assert.equal(tripped.res.status, 200);
    const data = tripped.body!.data;
    assert.deepEqual({ ...data, dataPlanes: data.dataPlanes.map((p) => [p.instanceId, p.breaker?.state]) }, {
      routeId: 'cb',
      enabled: true,
      name: 'route:cb',
      kind: 'route',
      state: 'OPEN',
      failures: 0,
      successes: 0,
      lastFailureTime: null,
      dataPlanes: [
        ['dp-0', 'OPEN'],
        ['dp-1', 'OPEN'],
      ],
      missing: [],
    });
    const before = upstreamCalls('/cb');
    for (const dp of planes) {
      const res = await proxy(dp, '/cb/x');
      assert.equal(res.status, 503);
      assert.equal(res.json()['message'], 'Circuit breaker is open');
      const deep = (await proxy(dp, '/health/deep')).json<{ circuitBreakers: Record<string, { state: string }> }>();
      assert.equal(deep.circuitBreakers['route:cb']?.state, 'OPEN');
    }
    assert.equal(upstreamCalls('/cb'), before, 'no upstream call while open');

    const status = await api<BreakerAnswer>('GET', '/api/routes/cb/circuit-breaker');
    assert.equal(status.res.status, 200);
    assert.equal(status.body!.data.state, 'OPEN');
    assert.deepEqual(status.body!.data.dataPlanes.map((p) => p.instanceId), ids());

    const reset = await api<BreakerAnswer>('POST', '/api/routes/cb/circuit-breaker/reset');
    assert.equal(reset.res.status, 200);
    assert.equal(reset.body!.data.state, 'CLOSED');
    assert.deepEqual(reset.body!.data.dataPlanes.map((p) => p.breaker?.state), ['CLOSED', 'CLOSED']);
    for (const dp of planes) assert.equal((await proxy(dp, '/cb/x')).status, 200);
    assert.equal(upstreamCalls('/cb'), before + 2);

    const audit = await api<Array<{ actor: string; action: string; target: string; details: { answered: string[] } }>>('GET', '/api/audit-log?limit=10');
    const actions = audit.body!.data.filter((e) => e.target === 'cb').map((e) => [e.actor, e.action, e.details.answered]);
    assert.deepEqual(actions.slice(0, 2), [
      [ADMIN.email, 'route.circuit-breaker.reset', ids()],
      [ADMIN.email, 'route.circuit-breaker.trip', ids()],
    ]);
  });

  test('circuit_breaker.opened arrives on the bus for a manual trip (one per data plane) and for a failure trip', async () => {
    const manual = opened.filter((e) => e.data.breaker === 'route:cb');
    await eventually(() => opened.filter((e) => e.data.breaker === 'route:cb').length >= 2, 'two manual-trip events', 2000);
    assert.deepEqual(
      opened
        .filter((e) => e.data.breaker === 'route:cb')
        .map((e) => [e.type, e.data.kind, e.data.routeIds, e.data.reason, e.data.instanceId])
        .sort((a, b) => String(a[4]).localeCompare(String(b[4]))),
      [
        ['circuit_breaker.opened', 'route', ['cb'], 'manual', 'dp-0'],
        ['circuit_breaker.opened', 'route', ['cb'], 'manual', 'dp-1'],
      ],
    );
    assert.ok(manual.every((e) => typeof e.id === 'string' && !Number.isNaN(Date.parse(e.createdAt))));

    // Two failed exchanges on one data plane reach the route's threshold (50 % of at least 2).
    const [first] = planes as [DataPlane];
    assert.equal((await proxy(first, '/flaky/x')).status, 500);
    assert.equal((await proxy(first, '/flaky/x')).status, 500);
    assert.equal((await proxy(first, '/flaky/x')).status, 503);
    await eventually(() => opened.some((e) => e.data.breaker === 'route:flaky'), 'the failure-trip event', 2000);
    const failure = opened.filter((e) => e.data.breaker === 'route:flaky');
    assert.deepEqual(failure.map((e) => [e.data.reason, e.data.instanceId, e.data.routeIds]), [['failures', 'dp-0', ['flaky']]]);

    const status = await api<BreakerAnswer>('GET', '/api/routes/flaky/circuit-breaker');
    assert.equal(status.body!.data.state, 'OPEN', 'the most severe state over the data planes');
    assert.equal(status.body!.data.failures, 2, 'failures summed over the data planes');
    assert.equal(typeof status.body!.data.lastFailureTime, 'string');
    assert.deepEqual(status.body!.data.dataPlanes.map((p) => [p.instanceId, p.breaker?.state, p.breaker?.failures]), [
      ['dp-0', 'OPEN', 2],
      ['dp-1', 'CLOSED', 0],
    ]);
  });

  test('a route without a breaker: GET answers enabled:false, trip and reset answer 422 NO_CIRCUIT_BREAKER', async () => {
    const status = await api<BreakerAnswer>('GET', '/api/routes/plain/circuit-breaker');
    assert.equal(status.res.status, 200);
    assert.deepEqual({ ...status.body!.data, dataPlanes: status.body!.data.dataPlanes.map((p) => p.breaker) }, {
      routeId: 'plain',
      enabled: false,
      name: null,
      kind: null,
      state: null,
      failures: 0,
      successes: 0,
      lastFailureTime: null,
      dataPlanes: [null, null],
      missing: [],
    });
    for (const action of ['trip', 'reset']) {
      const { res, body } = await api('POST', `/api/routes/plain/circuit-breaker/${action}`);
      assert.equal(res.status, 422);
      assert.deepEqual(body, { success: false, error: 'Route has no circuit breaker', code: 'NO_CIRCUIT_BREAKER' });
    }
  });

  test('GET rate-limit: the stored configuration and usage counting exactly the requests sent to each data plane', async () => {
    const [a, b] = planes as [DataPlane, DataPlane];
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await proxy(a, '/rl/x')).status);
    for (let i = 0; i < 2; i += 1) statuses.push((await proxy(b, '/rl/x')).status);
    assert.deepEqual(statuses, [200, 200, 200, 429, 200, 200], 'each data plane counts on its own (no shared Redis counters here)');
    type Usage = { hits: number; rejections: number; busiestKeys: Array<{ key: string; hits: number; rejections: number }> };
    const { res, body } = await api<{
      routeId: string;
      enabled: boolean;
      config: Record<string, unknown>;
      usage: Usage;
      dataPlanes: Array<{ instanceId: string; usage: (Usage & { since: string }) | null }>;
      missing: string[];
    }>('GET', '/api/routes/rl/rate-limit');
    assert.equal(res.status, 200);
    const data = body!.data;
    assert.equal(data.enabled, true);
    assert.deepEqual([data.config['max'], data.config['windowMs'], data.config['strategy'], data.config['scope']], [3, 600000, 'token-bucket', 'ip']);
    assert.deepEqual(data.usage, { hits: 5, rejections: 1, busiestKeys: [{ key: 'ip:127.0.0.1', hits: 5, rejections: 1 }] });
    assert.deepEqual(
      data.dataPlanes.map((p) => [p.instanceId, p.usage?.hits, p.usage?.rejections]),
      [
        ['dp-0', 3, 1],
        ['dp-1', 2, 0],
      ],
    );
    assert.ok(data.dataPlanes.every((p) => typeof p.usage?.since === 'string'));
    assert.deepEqual(data.missing, []);

    const unlimited = await api<{ enabled: boolean; config: unknown; usage: Usage; dataPlanes: Array<{ usage: unknown }> }>('GET', '/api/routes/plain/rate-limit');
    assert.deepEqual(
      { ...unlimited.body!.data, dataPlanes: unlimited.body!.data.dataPlanes.map((p) => p.usage) },
      { routeId: 'plain', enabled: false, config: null, usage: { hits: 0, rejections: 0, busiestKeys: [] }, dataPlanes: [null, null], missing: [] },
    );
  });

  test('GET health follows the upstream\'s /health on both data planes: status, last check, consecutive results, latency, breaker', async () => {
    type Check = { status: string; url: string; lastCheck: string | null; consecutiveSuccesses: number; consecutiveFailures: number; latencyMs: number | null; lastError: string | null };
    type Health = { routeId: string; status: string | null; check: Check | null; breaker: BreakerView | null; dataPlanes: Array<{ instanceId: string; check: Check | null }>; missing: string[] };
    const health = async (): Promise<Health> => (await api<Health>('GET', '/api/routes/hc/health')).body!.data;
    let seen: Health | undefined;
    await eventually(async () => ((seen = await health()), seen.dataPlanes.every((p) => p.check?.status === 'Healthy')), 'Healthy on both', 5000, 100);
    assert.equal(seen!.status, 'Healthy');
    assert.equal(seen!.check?.url, `${upstream.origin}/health`);
    assert.equal(typeof seen!.check?.lastCheck, 'string');
    assert.equal(typeof seen!.check?.latencyMs, 'number');
    assert.ok(seen!.check!.consecutiveSuccesses >= 1);
    assert.equal(seen!.breaker, null, 'the route has no breaker');
    assert.deepEqual(seen!.dataPlanes.map((p) => p.instanceId), ids());

    healthStatus = 503;
    await eventually(async () => ((seen = await health()), seen.dataPlanes.every((p) => p.check?.status === 'Unhealthy')), 'Unhealthy on both', 5000, 100);
    assert.equal(seen!.status, 'Unhealthy');
    assert.ok(seen!.check!.consecutiveFailures >= 1);
    assert.equal(seen!.check!.consecutiveSuccesses, 0);
    for (const dp of planes) assert.equal((await proxy(dp, '/hc/x')).status, 503);

    healthStatus = 200;
    await eventually(async () => (await health()).dataPlanes.every((p) => p.check?.status === 'Healthy'), 'Healthy again on both', 5000, 100);
    const withBreaker = await api<Health>('GET', '/api/routes/cb/health');
    assert.deepEqual([withBreaker.body!.data.status, withBreaker.body!.data.check, withBreaker.body!.data.breaker?.name], [null, null, 'route:cb']);
  });

  test('DELETE cache purges the route on both data planes: the next request is a MISS everywhere', async () => {
    for (const dp of planes) {
      assert.equal((await proxy(dp, '/cached/a')).headers['x-cache'], 'MISS');
      assert.equal((await proxy(dp, '/cached/a')).headers['x-cache'], 'HIT');
    }
    const { res } = await api('DELETE', '/api/routes/cached/cache');
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    for (const dp of planes) assert.equal((await proxy(dp, '/cached/a')).headers['x-cache'], 'MISS');
    const audit = await api<Array<{ action: string; target: string; actor: string; details: { purged: number; answered: string[] } }>>('GET', '/api/audit-log?limit=5');
    const entry = audit.body!.data.find((e) => e.action === 'route.cache.purge');
    assert.deepEqual([entry?.actor, entry?.target, entry?.details.purged, entry?.details.answered], [ADMIN.email, 'cached', 2, ids()]);
  });

  test('a data plane that stopped answering: actions answer 503 DATA_PLANES_UNAVAILABLE naming it (applied on the others); reads list it as missing', async () => {
    await planes.pop()!.close();
    // Its last presence is still fresh (3 intervals), so the control plane waits for it and reports it.
    const trip = await api('POST', '/api/routes/cb/circuit-breaker/trip');
    assert.equal(trip.res.status, 503);
    assert.equal(trip.body?.code, 'DATA_PLANES_UNAVAILABLE');
    assert.deepEqual(trip.body?.details, { answered: ['dp-0'], missing: ['dp-1'] });
    assert.equal((await proxy(planes[0]!, '/cb/x')).status, 503, 'applied on the data plane that answered');
    const status = await api<BreakerAnswer>('GET', '/api/routes/cb/circuit-breaker');
    assert.equal(status.res.status, 200);
    assert.deepEqual([status.body!.data.state, status.body!.data.dataPlanes.map((p) => p.instanceId), status.body!.data.missing], ['OPEN', ['dp-0'], ['dp-1']]);
    const purge = await api('DELETE', '/api/routes/cached/cache');
    assert.equal(purge.res.status, 503);
    assert.deepEqual(purge.body?.details, { answered: ['dp-0'], missing: ['dp-1'] });
  });
});
