import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PROXY_DEFAULTS, validateProxyConfig, type ProxyConfig, type Route } from '@gateway/route-model';
import { createPinoLogger } from '../adapters/pino-logger.adapter';
import { BREAKERS } from '../policies/circuit-breaker/breaker-registry';
import { POLICY_FACTORIES } from '../policies/policy-registry';
import { createTestServices } from '../testing/engine-services.fixture';
import { DeadlineWheel } from './deadline-wheel';
import type { Exchange } from './exchange';
import type { PolicyFactory } from './policy';
import { RouteTable, type TableInputs } from './route-table';
import { runToEnd } from './time-slices';
import { UpstreamPools } from './upstream-target';
import { UpstreamHealthRegistry } from './upstream-health-registry';

function config(routes: Array<Record<string, unknown>>): ProxyConfig {
  const result = validateProxyConfig({ version: '1.0.0', routes });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

const ROUTES = [
  { id: 'a', path: '/a/*', upstream: 'http://127.0.0.1:9/a', rateLimit: { enabled: true, max: 10, windowMs: 1000 } },
  { id: 'b', path: '/b/status', upstream: 'http://127.0.0.1:9/b', methods: ['GET'] },
  { id: 'c', path: '/c/*/items', upstream: 'http://127.0.0.1:9/c', circuitBreaker: { enabled: true } },
  { id: 'd', path: '/*', upstream: 'http://127.0.0.1:9/d', priority: 0 },
];

describe('RouteTable: reuse and incremental changes', () => {
  const logger = createPinoLogger('silent');
  const { services, close } = createTestServices({ logger, health: new UpstreamHealthRegistry(), deadlines: new DeadlineWheel<Exchange>() });
  const pools = new UpstreamPools();
  const inputs = (proxy = { ...PROXY_DEFAULTS, trustedProxies: [] as string[] }): TableInputs => ({ factories: POLICY_FACTORIES, baseEnv: { settings: proxy, services }, pools });
  const build = (source: ProxyConfig, previous?: RouteTable, fingerprints?: string[]) =>
    runToEnd(RouteTable.buildSteps(fingerprints === undefined ? { config: source } : { config: source, fingerprints }, inputs(), previous));
  const served = (table: RouteTable, path: string): string | undefined => table.match('GET', path)?.route.upstream;
  after(() => {
    pools.destroy();
    close();
  });

  test('a reload of an equal configuration compiles nothing and keeps every compiled route and route object', () => {
    const first = build(config(ROUTES));
    assert.equal(first.compiled, 4);
    const second = build(config(ROUTES), first.table);
    assert.equal(second.compiled, 0);
    assert.deepEqual(second.diff, { added: [], changed: [], removed: [] });
    second.table.routes.forEach((route, i) => assert.equal(route, first.table.routes[i]));
    second.table.config.routes.forEach((route, i) => assert.equal(route, first.table.config.routes[i]));
    assert.equal(served(second.table, '/c/x/items'), 'http://127.0.0.1:9/c');
  });

  test('only the changed, added and removed routes count; the others keep their compiled form', () => {
    const first = build(config(ROUTES));
    const next = config([{ ...ROUTES[0], upstream: 'http://127.0.0.1:9/a2' }, ROUTES[1], ROUTES[3], { id: 'e', path: '/e', upstream: 'http://127.0.0.1:9/e' }]);
    const second = build(next, first.table);
    assert.equal(second.compiled, 2);
    assert.deepEqual(second.diff.changed.map((c) => [c.after.id, c.fields]), [['a', ['upstream']]]);
    assert.deepEqual(second.diff.added.map((r) => r.id), ['e']);
    assert.deepEqual(second.diff.removed.map((r) => r.id), ['c']);
    assert.equal(second.table.routes[1], first.table.routes[1]);
    assert.equal(served(second.table, '/a/x'), 'http://127.0.0.1:9/a2');
    assert.equal(served(second.table, '/c/x/items'), 'http://127.0.0.1:9/d');
  });

  test('equal fingerprints reuse a route without comparing it; a different one recompiles it', () => {
    const first = build(config(ROUTES), undefined, ['f0', 'f1', 'f2', 'f3']);
    // The definitions differ, but the loader vouches they do not: the fingerprint decides.
    const vouched = config(ROUTES.map((r) => ({ ...r, description: 'edited' })));
    const second = build(vouched, first.table, ['f0', 'f1', 'f2', 'f3']);
    assert.equal(second.compiled, 0);
    const third = build(vouched, second.table, ['f0', 'f1', 'x2', 'f3']);
    assert.equal(third.compiled, 1);
    assert.equal(third.table.routes[2]?.route.description, 'edited');
  });

  test('the first reload with fingerprints (after a start-up without) keeps every route object and updates the index', () => {
    const first = build(config(ROUTES));
    assert.ok(first.table.routes.every((route) => route.fingerprint === undefined));
    const second = build(config(ROUTES), first.table, ['f0', 'f1', 'f2', 'f3']);
    assert.equal(second.compiled, 0);
    assert.equal(second.indexUpdated, true);
    second.table.routes.forEach((route, i) => assert.equal(route, first.table.routes[i]));
    assert.deepEqual(
      second.table.routes.map((route) => route.fingerprint),
      ['f0', 'f1', 'f2', 'f3'],
    );
    // A fingerprint it already has is not overwritten in place: another one makes a new object.
    const third = build(config(ROUTES), second.table, ['f0', 'g1', 'f2', 'f3']);
    assert.notEqual(third.table.routes[1], second.table.routes[1]);
    assert.equal(third.table.routes[1]?.fingerprint, 'g1');
    assert.equal(second.table.routes[1]?.fingerprint, 'f1');
  });

  test('a full reload that keeps the routes in their order updates the previous index; a reorder builds one afresh', () => {
    const probes = ['/a/x', '/b/status', '/c/x/items', '/e', '/zzz'];
    const first = build(config(ROUTES));
    const edited = config([{ ...ROUTES[0], path: '/e' }, ROUTES[1], ROUTES[3], { id: 'e', path: '/*/*', upstream: 'http://127.0.0.1:9/e', priority: 0 }]);
    const second = build(edited, first.table);
    assert.equal(second.indexUpdated, true);
    second.table.settleIndex();
    const fresh = build(edited);
    for (const path of [...probes, '/x/y']) assert.equal(second.table.match('GET', path)?.id, fresh.table.match('GET', path)?.id, path);
    // '/*' ('d') and the appended '/*/*' ('e') tie on everything but their list position: 'd' wins.
    assert.equal(second.table.match('GET', '/x/y')?.id, 'd');
    // The first table gave its index away; matched again, it still answers with its own routes.
    assert.equal(first.table.match('GET', '/c/x/items')?.id, 'c');
    const reordered = config([ROUTES[3], ROUTES[1], { ...ROUTES[0], path: '/e' }, { id: 'e', path: '/*/*', upstream: 'http://127.0.0.1:9/e', priority: 0 }]);
    const third = build(reordered, second.table);
    assert.equal(third.indexUpdated, undefined);
    assert.equal(third.table.match('GET', '/zzz')?.id, 'd');
    assert.equal(third.table.match('GET', '/e')?.id, 'a');
  });

  test('a change applied in place while a full reload builds makes that reload build its index afresh', () => {
    const first = build(config(ROUTES));
    const next = config([ROUTES[0], ROUTES[1], ROUTES[2], { ...ROUTES[3], upstream: 'http://127.0.0.1:9/d2' }]);
    const steps = RouteTable.buildSteps({ config: next }, inputs(), first.table);
    // Reused routes go 16 a step, a compiled one is a step of its own: the first step ends after `d`.
    assert.equal(steps.next().done, false);
    // A control-plane change message lands between two slices of the build: it moves the index on.
    const changedB = { ...(first.table.config.routes[1] as Route), path: '/b/other' };
    const moved = first.table.withChanges({ config: { ...first.table.config, routes: [ROUTES[0], changedB, ROUTES[2], ROUTES[3]] as Route[] }, upserted: [changedB], removedIds: [] }, inputs());
    assert.ok(moved !== undefined);
    const built = runToEnd(steps);
    assert.equal(built.indexUpdated, undefined);
    assert.equal(built.table.match('GET', '/b/status')?.id, 'b');
    assert.equal(built.table.match('GET', '/zzz')?.route.upstream, 'http://127.0.0.1:9/d2');
    assert.equal(moved.table.match('GET', '/b/status')?.id, 'd');
  });

  test('new proxy settings recompile every route', () => {
    const first = build(config(ROUTES));
    const second = runToEnd(RouteTable.buildSteps({ config: config(ROUTES) }, inputs({ ...PROXY_DEFAULTS, trustedProxies: ['10.0.0.0/8'] }), first.table));
    assert.equal(second.compiled, 4);
    assert.deepEqual(second.diff, { added: [], changed: [], removed: [] });
  });

  test('withChanges compiles the changed route only and matches like a full build of the result', () => {
    const first = build(config(ROUTES));
    const changedA = { ...(first.table.config.routes[0] as Route), upstream: 'http://127.0.0.1:9/a3' };
    const added = config([{ id: 'f', path: '/f/*', upstream: 'http://127.0.0.1:9/f' }]).routes[0] as Route;
    const routes = [changedA, ...first.table.config.routes.slice(1).filter((r) => r.id !== 'b'), added];
    const after = { ...first.table.config, routes };
    const changed = first.table.withChanges({ config: after, upserted: [changedA, added], removedIds: ['b'] }, inputs());
    assert.ok(changed !== undefined);
    assert.equal(changed.compiled, 2);
    assert.deepEqual(changed.diff.changed.map((c) => c.after.id), ['a']);
    assert.deepEqual(changed.diff.added.map((r) => r.id), ['f']);
    assert.deepEqual(changed.diff.removed.map((r) => r.id), ['b']);
    assert.deepEqual(changed.table.routes.map((r) => r.id), ['a', 'c', 'd', 'f']);
    const full = build(after);
    for (const path of ['/a/1', '/b/status', '/c/x/items', '/f/1', '/zzz']) assert.equal(served(changed.table, path), served(full.table, path), path);
  });

  test('a route compiles its pipeline at its first request, not when the table loads', () => {
    const { table } = build(config(ROUTES));
    assert.deepEqual(table.routes.map((r) => r.hasPipeline), [false, false, false, false]);
    const matched = table.match('GET', '/a/x');
    assert.equal(matched?.id, 'a');
    assert.equal(table.routes[0]?.hasPipeline, false, 'matching alone compiles nothing');
    // The rate limiter is the route's (and the body-size check every route's): both are there at the first read.
    assert.equal(matched.onRequest?.length, 2);
    assert.deepEqual(table.routes.map((r) => r.hasPipeline), [true, false, false, false]);
    // A reload that keeps the route keeps its compiled pipeline; one that keeps an uncalled route keeps it uncompiled.
    const second = build(config(ROUTES), table);
    assert.equal(second.table.routes[0]?.callUpstream, matched.callUpstream);
    assert.equal(second.table.routes[1]?.hasPipeline, false);
  });

  test("a route's breaker exists from load, before any request (gauge, control-plane holds)", () => {
    const own = createTestServices({ logger, health: new UpstreamHealthRegistry(), deadlines: new DeadlineWheel<Exchange>() });
    try {
      const { table } = runToEnd(RouteTable.buildSteps({ config: config(ROUTES) }, { ...inputs(), baseEnv: { settings: inputs().baseEnv.settings, services: own.services } }, undefined));
      assert.equal(table.routes[2]?.hasPipeline, false);
      assert.equal(own.services.state.get(BREAKERS).status('c')?.state, 'CLOSED');
      assert.equal(own.services.state.get(BREAKERS).status('b'), undefined, 'a route without a breaker has none');
    } finally {
      own.close();
    }
  });

  test('routes with equal policy settings share their policies and pipeline; per-route state is never shared', () => {
    const same = config([
      ...ROUTES,
      { id: 'e', path: '/e/*', upstream: 'http://127.0.0.1:9/e', rateLimit: { enabled: true, max: 10, windowMs: 1000 } },
      { id: 'f', path: '/f', upstream: 'http://127.0.0.1:9/f', timeout: { request: 7000 } },
    ]);
    const [a, b, c, d, e, f] = build(same).table.routes;
    assert.ok(a && b && c && d && e && f);
    // b and d carry only the defaults (body-size limit, retry, timeout): one pipeline between them.
    assert.equal(b.callUpstream, d.callUpstream);
    assert.equal(b.onRequest, d.onRequest);
    assert.deepEqual(b.policies, d.policies);
    // a and e have equal rate limits, but each its own limiter (its counts are keyed by route id).
    assert.notEqual(a.onRequest, e.onRequest);
    assert.notEqual(a.policies[1], e.policies[1]);
    assert.equal(a.policies[0], b.policies[0], 'the body-size check is one policy for the table');
    // Another request timeout: its own timeout and retry policies (the retry budget is the timeout).
    assert.notEqual(f.callUpstream, b.callUpstream);
    assert.equal(f.policies[0], b.policies[0]);
    assert.notEqual(f.policies.at(-1), b.policies.at(-1));
    assert.notEqual(c.callUpstream, b.callUpstream, 'a breaker route has its own pipeline');
  });

  test("a policy that throws while a route compiles fails that route's requests, not the table or the process", () => {
    const failing: PolicyFactory = {
      key: 'failing',
      scope: 'route',
      order: 1,
      create: (route) => {
        if (route?.id === 'b') throw new Error('bug in a policy');
        return null;
      },
    };
    const built = runToEnd(RouteTable.buildSteps({ config: config(ROUTES) }, { ...inputs(), factories: [...POLICY_FACTORIES, failing] }, undefined));
    const b = built.table.match('GET', '/b/status');
    assert.ok(b !== undefined);
    const hooks = b.onRequest;
    assert.equal(hooks?.length, 1);
    assert.throws(() => hooks?.[0]?.({} as Exchange), /bug in a policy/);
    assert.throws(() => b.callUpstream({} as Exchange, () => undefined), /bug in a policy/);
    assert.equal(built.table.match('GET', '/a/x')?.onRequest?.length, 2, 'other routes compile as usual');
  });

  test('header rules are written on the raw head only when they are the route\'s one response hook', () => {
    const rules = { response: { set: { 'X-Served-By': 'gw' }, remove: ['Server'] } };
    const built = build(
      config([
        { id: 'h', path: '/h', upstream: 'http://127.0.0.1:9/h', headers: rules },
        { id: 'ht', path: '/ht', upstream: 'http://127.0.0.1:9/ht', headers: rules, transform: { response: { body: { exclude: ['secret'] } } } },
        { id: 'hr', path: '/hr', upstream: 'http://127.0.0.1:9/hr', headers: { request: { set: { 'X-A': 'a' } } } },
      ]),
    );
    const head = built.table.match('GET', '/h')?.responseHead;
    assert.ok(head !== undefined && head !== null, 'headers alone: the raw-head form');
    assert.deepEqual([...head.names].sort(), ['server', 'x-served-by']);
    assert.deepEqual(head.set.map(([name]) => name), ['x-served-by']);
    assert.equal(built.table.match('GET', '/ht')?.responseHead, null, 'with a body transform: the header map, for both hooks');
    assert.equal(built.table.match('GET', '/ht')?.onResponse?.length, 2);
    assert.equal(built.table.match('GET', '/hr')?.responseHead, null, 'no response rules');
  });

  test('withChanges declines a change of what routes are compiled against', () => {
    const first = build(config(ROUTES));
    const after = { ...first.table.config, upstreams: [{ name: 'u', url: 'http://127.0.0.1:9' }] };
    assert.equal(first.table.withChanges({ config: after, upserted: [], removedIds: [] }, inputs()), undefined);
  });
});
