import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProxyConfig } from '@gateway/route-model';
import { createPinoLogger } from '../adapters/pino-logger.adapter';
import { makeTempDir } from '@gateway/testing';
import { ConfigReloader, type ConfigLoad } from './config-reloader';
import { RequestDispatcher } from './request-dispatcher';
import { DeadlineWheel } from './deadline-wheel';
import type { Exchange } from './exchange';
import { createTestServices } from '../testing/engine-services.fixture';
import { validConfig } from '../testing/spec-helpers.fixture';
import { UpstreamPools } from './upstream-target';
import { UpstreamHealthRegistry } from './upstream-health-registry';
import { POLICY_FACTORIES } from '../policies/policy-registry';
import { existsSync, readFileSync } from 'node:fs';
import { SerializedJsonArray } from './state-files';
import type { PolicyFactory } from './policy';
import { BREAKERS } from '../policies/circuit-breaker/breaker-registry';
import path from 'node:path';

function config(paths: string[]): ProxyConfig {
  return validated(paths.map((p) => ({ path: p, upstream: 'http://127.0.0.1:9' })));
}

function validated(routes: object[]): ProxyConfig {
  return validConfig({ routes });
}

function setup(load: () => Promise<ConfigLoad>, options: { answersReloads?: boolean; factories?: readonly PolicyFactory[] } = {}) {
  const dir = makeTempDir();
  const logger = createPinoLogger('silent');
  const health = new UpstreamHealthRegistry();
  const deadlines = new DeadlineWheel<Exchange>();
  const { services, close: closeServices } = createTestServices({ logger, health, deadlines });
  const dispatcher = new RequestDispatcher({ onRequest: null, onResponse: null, onComplete: null }, { handle: () => false }, logger);
  const pools = new UpstreamPools();
  const reloader = new ConfigReloader({
    load,
    dispatcher,
    factories: options.factories ?? POLICY_FACTORIES,
    services,
    health,
    pools,
    snapshotPath: path.join(dir.path, 'routes.snapshot.json'),
    ...(options.answersReloads === false ? {} : { statusPath: path.join(dir.path, 'reload-status.json') }),
    overrides: {},
  });
  return { reloader, dispatcher, services, dir: dir.path, done: () => (pools.destroy(), closeServices(), dir.remove()) };
}

test('reloads never overlap: calls during a reload coalesce into one follow-up run', async () => {
  let active = 0;
  let maxActive = 0;
  let calls = 0;
  const gates: Array<() => void> = [];
  const { reloader, dispatcher, done } = setup(async () => {
    calls += 1;
    active += 1;
    maxActive = Math.max(maxActive, active);
    await new Promise<void>((resolve) => gates.push(resolve));
    active -= 1;
    return { ok: true, config: config([`/r${calls}`]) };
  });
  const first = reloader.reload();
  const second = reloader.reload();
  const third = reloader.reload();
  assert.equal(second, third, 'waiting callers share the follow-up run');
  await new Promise((r) => setImmediate(r));
  gates.shift()?.();
  const firstOutcome = await first;
  assert.equal(firstOutcome.ok, true);
  await new Promise((r) => setImmediate(r));
  gates.shift()?.();
  const secondOutcome = await second;
  assert.equal(secondOutcome.ok, true);
  assert.equal(calls, 2);
  assert.equal(maxActive, 1);
  assert.equal(dispatcher.getTable()?.match('GET', '/r2')?.id !== undefined, true);
  done();
});

test('an invalid configuration keeps the running table and reports every error', async () => {
  let next: ConfigLoad = { ok: true, config: config(['/keep']) };
  const { reloader, dispatcher, done } = setup(async () => next);
  assert.equal((await reloader.reload()).ok, true);
  const table = dispatcher.getTable();
  next = { ok: false, errors: [{ field: 'routes[0].path', code: 'INVALID_PATH', message: 'Invalid path format' }] };
  const outcome = await reloader.reload();
  assert.equal(outcome.ok, false);
  assert.equal(outcome.ok ? 0 : outcome.errors.length, 1);
  assert.equal(dispatcher.getTable(), table);
  done();
});

test('without a statusPath (following a control plane) applies are recorded in the snapshot only, never in reload-status.json', async () => {
  const { reloader, dir, done } = setup(async () => ({ ok: true, config: config(['/a']) }), { answersReloads: false });
  reloader.commit({ ok: true, config: config(['/a', '/b']), revision: 7 }, 'route upserted');
  await reloader.flush();
  assert.equal(existsSync(path.join(dir, 'routes.snapshot.json')), true);
  assert.equal(existsSync(path.join(dir, 'reload-status.json')), false);
  done();
});

test('the state a route change leaves is released only once a table built meanwhile is live, never from under it', async () => {
  // Routes named slow-* take 1 ms each to load (`prepare` runs when a route loads; its pipeline
  // compiles at its first request): a table of 400 of them outlasts the 250 ms after which a route
  // change's state is released, so that release falls in the build.
  const slowCompile: PolicyFactory = {
    key: 'slow-compile',
    scope: 'route',
    order: 1,
    prepare: (route) => {
      if (route.id.startsWith('slow-')) for (const until = performance.now() + 1; performance.now() < until; );
    },
    create: () => null,
  };
  const { reloader, services, done } = setup(async () => ({ ok: false, errors: [] }), { factories: [...POLICY_FACTORIES, slowCompile] });
  const breaker = { enabled: true, threshold: 50, timeout: 30_000, volumeThreshold: 20 };
  try {
    const breakers = services.state.get(BREAKERS);
    const first = validated([
      { id: 'gone', path: '/gone/*', upstream: 'http://127.0.0.1:9', circuitBreaker: breaker },
      { id: 'kept', path: '/kept/*', upstream: 'http://127.0.0.1:9' },
    ]);
    reloader.apply(first);
    assert.notEqual(breakers.status('gone'), undefined);
    const withoutGone = { ...first, routes: first.routes.filter((r) => r.id !== 'gone') };
    assert.equal(reloader.commitChanges({ config: withoutGone, upserted: [], removedIds: ['gone'] }, 2, 'route deleted').ok, true);
    // The new route is compiled first (its breaker registered), the slow ones after it.
    const next = validated([
      { id: 'new', path: '/new/*', upstream: 'http://127.0.0.1:9', circuitBreaker: breaker },
      { id: 'kept', path: '/kept/*', upstream: 'http://127.0.0.1:9' },
      ...Array.from({ length: 400 }, (_, i) => ({ id: `slow-${i}`, path: `/slow/${i}`, upstream: 'http://127.0.0.1:9' })),
    ]);
    const started = performance.now();
    const applied = await reloader.applyInSlices({ ok: true, config: next });
    assert.ok(performance.now() - started > 300, 'the build outlasted the release delay');
    assert.equal(applied?.ok, true);
    await reloader.flush();
    assert.notEqual(breakers.status('new'), undefined, "the new route's breaker was kept");
    assert.equal(breakers.status('gone'), undefined, "the removed route's breaker was released");
  } finally {
    done();
  }
});

test('a table swapped while a policy releases state stops that pass: state of the new table is never released from under it', async () => {
  // `swap-midway` runs before the breakers' retain: on the first pass it applies a change adding
  // a route with a breaker between two of its steps. A pass that went on would release with the
  // configuration it started from, which has no such route.
  let armed = false;
  let swapped = false;
  let abandoned = 0;
  let applyNew: () => void = () => undefined;
  const swapMidway: PolicyFactory = {
    key: 'swap-midway',
    scope: 'route',
    order: 0,
    create: () => null,
    *retain() {
      let finished = false;
      try {
        yield;
        if (armed && !swapped) {
          swapped = true;
          applyNew();
        }
        yield;
        finished = true;
      } finally {
        // Reached without `finished` only when the engine called return() at the yield after the swap.
        if (swapped && !finished) abandoned += 1;
      }
    },
  };
  const { reloader, services, done } = setup(async () => ({ ok: false, errors: [] }), { factories: [swapMidway, ...POLICY_FACTORIES] });
  const breaker = { enabled: true, threshold: 50, timeout: 30_000, volumeThreshold: 20 };
  try {
    const breakers = services.state.get(BREAKERS);
    const first = validated([
      { id: 'gone', path: '/gone/*', upstream: 'http://127.0.0.1:9', circuitBreaker: breaker },
      { id: 'kept', path: '/kept/*', upstream: 'http://127.0.0.1:9', circuitBreaker: breaker },
    ]);
    reloader.apply(first);
    const withoutGone = { ...first, routes: first.routes.filter((r) => r.id !== 'gone') };
    const withNew = validated([
      { id: 'kept', path: '/kept/*', upstream: 'http://127.0.0.1:9', circuitBreaker: breaker },
      { id: 'new', path: '/new/*', upstream: 'http://127.0.0.1:9', circuitBreaker: breaker },
    ]);
    applyNew = () => {
      const added = withNew.routes.find((r) => r.id === 'new');
      assert.ok(added);
      const kept = withoutGone.routes[0];
      assert.ok(kept);
      assert.equal(reloader.commitChanges({ config: { ...withNew, routes: [kept, added] }, upserted: [added], removedIds: [] }, 3, 'route upserted').ok, true);
    };
    armed = true;
    assert.equal(reloader.commitChanges({ config: withoutGone, upserted: [], removedIds: ['gone'] }, 2, 'route deleted').ok, true);
    await reloader.flush();
    // The follow-up pass (250 ms after the interrupted one) is joined by flush only once it is scheduled.
    await new Promise((resolve) => setTimeout(resolve, 600));
    await reloader.flush();
    assert.equal(swapped, true, 'the change was applied in the middle of a release');
    assert.equal(abandoned, 1, 'the interrupted walk was abandoned (its generator returned)');
    assert.notEqual(breakers.status('new'), undefined, "the new route's breaker was kept");
    assert.notEqual(breakers.status('kept'), undefined, "the kept route's breaker was kept");
    assert.equal(breakers.status('gone'), undefined, "the removed route's breaker was released by the next pass");
  } finally {
    done();
  }
});

test('every policy releases state in chunks: no step of a release walks a whole table of 2,000 routes', () => {
  const { reloader, services, dispatcher, done } = setup(async () => ({ ok: false, errors: [] }));
  try {
    const loaded = validated(
      Array.from({ length: 2000 }, (_, i) => ({
        id: `r${i}`,
        path: `/r/${i}/*`,
        upstream: 'http://127.0.0.1:9',
        circuitBreaker: { enabled: true, threshold: 50, timeout: 30_000, volumeThreshold: 20 },
        rateLimit: { enabled: true, max: 100, windowMs: 60_000 },
      })),
    );
    reloader.apply(loaded);
    const table = dispatcher.getTable();
    assert.ok(table);
    const env = { settings: table.config.proxy, services, upstreams: new Map(), upstreamTls: undefined as never };
    const steps = new Map<string, number>();
    for (const factory of POLICY_FACTORIES) {
      const walk = factory.retain?.(table.config, env);
      if (walk === undefined) continue;
      let count = 1;
      for (let step = walk.next(); step.done !== true; step = walk.next()) count += 1;
      steps.set(factory.key, count);
    }
    // CHUNK_ITEMS (500) routes a step: 4 steps over the routes, 4 over the registry's routes, 4 over its 2,000 breakers, and the last.
    assert.equal(steps.get('circuit-breaker'), 13, `steps per policy: ${JSON.stringify([...steps])}`);
    // The usage registry has no entries yet (no request came): the routes only.
    assert.equal(steps.get('rate-limit'), 5, `steps per policy: ${JSON.stringify([...steps])}`);
    assert.equal(steps.get('health-check'), 5, `steps per policy: ${JSON.stringify([...steps])}`);
    assert.notEqual(services.state.get(BREAKERS).status('r1999'), undefined, 'a release by the live configuration keeps its routes');
  } finally {
    done();
  }
});

test('a load that brings its routes as JSON text is recorded with that text; one that does not match the routes is not used', async () => {
  const loaded = config(Array.from({ length: 100 }, (_, i) => `/json-${i}/*`));
  const encoded = loaded.routes.map((route) => Buffer.from(JSON.stringify(route)));
  let routeJson = new SerializedJsonArray(encoded.length, (i) => encoded[i] as Buffer);
  const { reloader, dispatcher, dir, done } = setup(async () => ({ ok: true, config: loaded, routeJson }));
  try {
    const read = () => JSON.parse(readFileSync(path.join(dir, 'routes.snapshot.json'), 'utf8')) as { routes: unknown[] };
    assert.equal((await reloader.reload()).ok, true);
    assert.deepEqual(read().routes, JSON.parse(JSON.stringify(dispatcher.getTable()?.config.routes)));
    // One element short: the text cannot be the table's routes, so they are serialized as before.
    routeJson = new SerializedJsonArray(encoded.length - 1, (i) => encoded[i + 1] as Buffer);
    assert.equal((await reloader.reload()).ok, true);
    assert.deepEqual(read().routes, JSON.parse(JSON.stringify(dispatcher.getTable()?.config.routes)));
  } finally {
    done();
  }
});
