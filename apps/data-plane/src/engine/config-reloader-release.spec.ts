import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { ProxyConfig } from '@gateway/route-model';
import { makeTempDir } from '@gateway/testing';
import { createPinoLogger } from '../adapters/pino-logger.adapter';
import { BREAKERS } from '../policies/circuit-breaker/breaker-registry';
import { HEALTH_CHECKS } from '../policies/health-check/health-check-registry';
import { POLICY_FACTORIES } from '../policies/policy-registry';
import { RATE_LIMIT_USAGE } from '../policies/rate-limit/rate-limit-usage';
import { TelemetryRegistry } from '../policies/telemetry/telemetry-registry';
import { upstreamLabel } from '../policies/telemetry/upstream-label';
import { createTestServices } from '../testing/engine-services.fixture';
import { validConfig } from '../testing/spec-helpers.fixture';
import { ConfigReloader } from './config-reloader';
import { DeadlineWheel } from './deadline-wheel';
import type { Exchange } from './exchange';
import type { PolicyFactory } from './policy';
import { RequestDispatcher } from './request-dispatcher';
import { upstreamEnvironment } from './route-table';
import { runToEnd } from './time-slices';
import { UpstreamHealthRegistry } from './upstream-health-registry';
import { UpstreamPools } from './upstream-target';

const UPSTREAM = 'http://127.0.0.1:9';
const BREAKER = { enabled: true, threshold: 50, timeout: 30_000, volumeThreshold: 20 };
const RATE_LIMIT = { enabled: true, max: 100, windowMs: 60_000 };
const CHECK = { enabled: true, interval: 60_000, timeout: 1_000 };

/**
 * The real reloader with every policy and a telemetry registry, the steps of each policy's
 * release counted: a walk over a table of N routes takes N / 500 steps and more (eachInChunks),
 * a release told of a few routes none.
 */
function setup() {
  const dir = makeTempDir();
  const logger = createPinoLogger('silent');
  const health = new UpstreamHealthRegistry();
  const tallies = new TelemetryRegistry();
  const { services, close } = createTestServices({ logger, health, deadlines: new DeadlineWheel<Exchange>() }, tallies);
  const steps = new Map<string, number>();
  const counted = function* (key: string, walk: Generator<void, void, void>): Generator<void, void, void> {
    steps.set(key, steps.get(key) ?? 0);
    for (let step = walk.next(); step.done !== true; step = walk.next()) {
      steps.set(key, (steps.get(key) ?? 0) + 1);
      yield;
    }
  };
  const factories: PolicyFactory[] = POLICY_FACTORIES.map((factory) => {
    const { retain, release } = factory;
    if (retain === undefined) return factory;
    return {
      ...factory,
      retain: (config, env) => counted(factory.key, retain.call(factory, config, env)),
      ...(release === undefined ? {} : { release: (left, config, env) => counted(factory.key, release.call(factory, left, config, env)) }),
    };
  });
  /** The policies whose release took more than one step since the last call (they walked), and clears the counts. */
  const walks = (): string[] => {
    const walked = [...steps].filter(([, n]) => n > 1).map(([key]) => key);
    steps.clear();
    return walked.sort();
  };
  const dispatcher = new RequestDispatcher({ onRequest: null, onResponse: null, onComplete: null }, { handle: () => false }, logger);
  const pools = new UpstreamPools();
  const reloader = new ConfigReloader({ load: async () => ({ ok: false, errors: [] }), dispatcher, factories, services, health, pools, snapshotPath: path.join(dir.path, 'routes.snapshot.json'), overrides: {} });
  return { reloader, dispatcher, services, tallies, walks, steps, factories, done: () => (pools.destroy(), close(), dir.remove()) };
}

type Setup = ReturnType<typeof setup>;

/** Everything the four policies with long-lived state hold, by name: what a release may drop. */
function stateOf({ services, tallies }: Setup, ids: readonly string[]) {
  const breakers = services.state.get(BREAKERS);
  const usage = services.state.get(RATE_LIMIT_USAGE);
  return {
    breakers: breakers.all().map((b) => `${b.name} <- ${b.routeIds.join(',')}`).sort(),
    checks: Object.keys(services.state.get(HEALTH_CHECKS).all()).sort(),
    checkedRoutes: ids.filter((id) => services.state.get(HEALTH_CHECKS).status(id) !== undefined),
    usage: ids.filter((id) => usage.usage(id) !== undefined),
    tallied: ids.filter((id) => tallies.hasRoute(id)),
  };
}

/** The tallies every route's compile makes (its own and its upstream's), as traffic on every route would. */
function tallyEverywhere({ tallies }: Setup, config: ProxyConfig): void {
  for (const route of config.routes) tallies.forCompiledRoute(route.id, upstreamLabel(route));
}

/** A walk over the live configuration (every policy's retain) after the release: it must find nothing more to drop. */
function fullWalk({ factories, dispatcher, services }: Setup): void {
  const table = dispatcher.getTable();
  assert.ok(table);
  const env = upstreamEnvironment(table.config, { settings: table.config.proxy, services });
  for (const factory of factories) if (factory.retain !== undefined) runToEnd(factory.retain(table.config, env));
}

test('a reload that removes and edits routes releases only their state, told what went: no policy walks the table', async () => {
  const setupped = setup();
  const { reloader, services, walks, done } = setupped;
  const ids = ['removed', 'edited-off', 'edited-kept', 'kept', 'switched-off', ...Array.from({ length: 1500 }, (_, i) => `other-${i}`)];
  try {
    const withAll = { circuitBreaker: BREAKER, rateLimit: RATE_LIMIT, healthCheck: CHECK };
    const first = validConfig({
      routes: [
        { id: 'removed', path: '/removed/*', upstream: UPSTREAM, ...withAll },
        { id: 'edited-off', path: '/edited-off/*', upstream: UPSTREAM, ...withAll },
        { id: 'edited-kept', path: '/edited-kept/*', upstream: UPSTREAM, ...withAll },
        { id: 'kept', path: '/kept/*', upstream: UPSTREAM, ...withAll },
        { id: 'switched-off', path: '/switched-off/*', upstream: UPSTREAM, ...withAll },
        ...Array.from({ length: 1500 }, (_, i) => ({ id: `other-${i}`, path: `/other/${i}/*`, upstream: UPSTREAM, circuitBreaker: BREAKER, rateLimit: RATE_LIMIT })),
      ],
    });
    reloader.apply(first);
    await reloader.flush();
    for (const id of ids) services.state.get(RATE_LIMIT_USAGE).forRoute(id).count('k', true);
    const breakers = services.state.get(BREAKERS);
    breakers.trip('edited-kept');
    const routes = first.routes.filter((r) => r.id !== 'removed').map((r) => {
      if (r.id === 'edited-off') return { id: r.id, path: r.path, upstream: UPSTREAM };
      if (r.id === 'edited-kept') return { ...r, upstream: `${UPSTREAM}/v2` };
      if (r.id === 'switched-off') return { ...r, enabled: false };
      return r;
    });
    const second = validConfig({ routes });
    walks();
    tallyEverywhere(setupped, first);
    const applied = await reloader.applyInSlices({ ok: true, config: second });
    assert.deepEqual(
      applied?.diff.changed.map((c) => c.after.id),
      ['edited-off', 'edited-kept', 'switched-off'],
    );
    await reloader.flush();
    assert.deepEqual([...setupped.steps.keys()].sort(), ['circuit-breaker', 'health-check', 'rate-limit', 'telemetry'], 'every policy with state released');
    assert.deepEqual(walks(), [], 'no policy walked the table: each was told what went');

    const after = stateOf(setupped, ids);
    const others = ids.slice(5);
    assert.deepEqual(after.breakers, ['route:edited-kept <- edited-kept', 'route:kept <- kept', ...others.map((id) => `route:${id} <- ${id}`)].sort());
    assert.equal(breakers.status('edited-kept')?.state, 'OPEN', "the edited route's breaker kept its state");
    assert.equal(breakers.status('removed'), undefined);
    assert.deepEqual(after.checks, ['route:edited-kept', 'route:kept']);
    assert.deepEqual(after.checkedRoutes, ['edited-kept', 'kept']);
    // Usage is kept while the route under the id limits, switched off or not (as the walk does).
    assert.deepEqual(after.usage, ['edited-kept', 'kept', 'switched-off', ...others]);
    // Telemetry keeps a tally per route the configuration has (a switched-off or edited route still is one).
    assert.deepEqual(after.tallied, ids.slice(1));

    // The contract: what a release told what went leaves is what a walk over the live configuration leaves.
    fullWalk(setupped);
    assert.deepEqual(stateOf(setupped, ids), after);
  } finally {
    done();
  }
});

test("a route that leaves an upstream's shared breaker and checks makes those policies walk: the upstream's state goes with its last route", async () => {
  const setupped = setup();
  const { reloader, services, walks, done } = setupped;
  const upstreams = [{ name: 'shared', url: UPSTREAM, circuitBreaker: { enabled: true }, healthCheck: { enabled: true, interval: 60_000, timeout: 1_000 } }];
  const route = (id: string, upstream = 'shared') => ({ id, path: `/${id}/*`, upstream, rateLimit: RATE_LIMIT });
  try {
    // Other routes enough that a walk shows: more than one step of 500.
    const filler = Array.from({ length: 1200 }, (_, i) => ({ id: `f${i}`, path: `/f/${i}/*`, upstream: UPSTREAM }));
    reloader.apply(validConfig({ upstreams, routes: [route('a'), route('b'), route('c', UPSTREAM), ...filler] }));
    await reloader.flush();
    const breakers = services.state.get(BREAKERS);
    const checks = services.state.get(HEALTH_CHECKS);
    assert.notEqual(breakers.byName('shared'), undefined);
    tallyEverywhere(setupped, validConfig({ upstreams, routes: [route('a'), route('b'), route('c', UPSTREAM), ...filler] }));
    walks();
    // `a` goes: `b` still passes the upstream's breaker and checks, which only a walk can tell.
    await reloader.applyInSlices({ ok: true, config: validConfig({ upstreams, routes: [route('b'), route('c', UPSTREAM), ...filler] }) });
    await reloader.flush();
    assert.deepEqual(walks(), ['circuit-breaker', 'health-check'], 'only the policies with upstream-wide state walked');
    assert.notEqual(breakers.byName('shared'), undefined, 'the breaker of an upstream still used is kept');
    assert.ok('shared' in checks.all(), 'the check of an upstream still used is kept');
    assert.equal(breakers.status('a'), undefined);
    assert.equal(services.state.get(RATE_LIMIT_USAGE).usage('a'), undefined);
    assert.equal(setupped.tallies.hasRoute('a'), false);
    assert.equal(setupped.tallies.hasUpstream('shared'), true, "the upstream's tally stays while a compiled route counts there");
    // `b` moves to its own URL: the last route of the upstream goes, and its breaker and check with it.
    await reloader.applyInSlices({ ok: true, config: validConfig({ upstreams, routes: [route('b', UPSTREAM), route('c', UPSTREAM), ...filler] }) });
    await reloader.flush();
    assert.equal(breakers.byName('shared'), undefined, "the upstream's breaker went with its last route");
    assert.equal('shared' in checks.all(), false, "the upstream's check went with its last route");
    assert.equal(setupped.tallies.hasUpstream('shared'), false, "the upstream's tally went with its last route");
    assert.equal(setupped.tallies.hasUpstream(new URL(UPSTREAM).origin), true);
  } finally {
    done();
  }
});

test('a reload that changes nothing releases nothing, and a burst of changes releases once for all of them', async () => {
  const setupped = setup();
  const { reloader, services, walks, done } = setupped;
  const route = (id: string) => ({ id, path: `/${id}/*`, upstream: UPSTREAM, circuitBreaker: BREAKER });
  try {
    const first = validConfig({ routes: [route('a'), route('b'), route('c')] });
    reloader.apply(first);
    await reloader.flush();
    walks();
    const same = await reloader.applyInSlices({ ok: true, config: validConfig({ routes: [route('a'), route('b'), route('c')] }) });
    assert.deepEqual(same?.diff, { added: [], changed: [], removed: [] });
    const breakers = services.state.get(BREAKERS);
    // Three changes 0 ms apart: `a` removed, then added back, then `b` removed: one release after the last.
    reloader.commitChanges({ config: validConfig({ routes: [route('b'), route('c')] }), upserted: [], removedIds: ['a'] }, 2, 'route deleted');
    const withA = validConfig({ routes: [route('b'), route('c'), route('a')] });
    const readded = withA.routes.find((r) => r.id === 'a');
    assert.ok(readded);
    reloader.commitChanges({ config: withA, upserted: [readded], removedIds: [] }, 3, 'route upserted');
    reloader.commitChanges({ config: validConfig({ routes: [route('c'), route('a')] }), upserted: [], removedIds: ['b'] }, 4, 'route deleted');
    await new Promise((resolve) => setTimeout(resolve, 400));
    await reloader.flush();
    assert.deepEqual(walks(), []);
    assert.notEqual(breakers.status('a'), undefined, 'a route removed and added back within the burst keeps its breaker');
    assert.equal(breakers.status('b'), undefined);
    assert.notEqual(breakers.status('c'), undefined);
  } finally {
    done();
  }
});
