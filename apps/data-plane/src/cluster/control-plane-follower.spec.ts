import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { InProcessBus, ROUTE_CHANGES_CHANNEL, type MessageBus, type RouteChangeMessage, type RouteSnapshot } from '@gateway/events';
import { makeTempDir } from '@gateway/testing';
import { normalizeRoute, PROXY_DEFAULTS, type Route } from '@gateway/route-model';
import { createPinoLogger } from '../adapters/pino-logger.adapter';
import { ConfigReloader } from '../engine/config-reloader';
import { DeadlineWheel } from '../engine/deadline-wheel';
import type { Exchange } from '../engine/exchange';
import { RequestDispatcher } from '../engine/request-dispatcher';
import { createTestServices } from '../testing/engine-services.fixture';
import { UpstreamPools } from '../engine/upstream-target';
import { UpstreamHealthRegistry } from '../engine/upstream-health-registry';
import { POLICY_FACTORIES } from '../policies/policy-registry';
import { ControlPlaneFollower, readChangeMessage, type FollowerTiming } from './control-plane-follower';

/*
 * Silence is off (60 s) but in the test of silence, which runs on the test's clock: with 300 ms of
 * real time, a stall of a loaded machine was silence, and its snapshot fetch upset tests of other things.
 */
const FAST: Partial<FollowerTiming> = { silenceMs: 60_000, startupTimeoutMs: 300, fetchTimeoutMs: 500, retryMinMs: 10, retryMaxMs: 40 };
const SILENCE_MS = 300;

function route(id: string, routePath = `/${id}`, extra: Record<string, unknown> = {}): Route {
  const result = normalizeRoute({ id, path: routePath, upstream: 'http://127.0.0.1:9', ...extra }, { source: 'api' });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

function snapshot(version: number, routes: Route[]): RouteSnapshot {
  return { version, createdAt: new Date().toISOString(), routes, upstreams: [] };
}

/** Waits for `condition`, bounded on the monotonic clock (a test may mock Date). */
async function until(condition: () => boolean, what: string, ms = 3000): Promise<void> {
  const end = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > end) assert.fail(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A bus whose reconnect the test triggers (the in-process bus never disconnects). */
class ReconnectingBus extends InProcessBus implements MessageBus {
  private readonly listeners = new Set<() => void>();
  onReconnect(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  reconnect(): void {
    for (const l of this.listeners) l();
  }
}

interface Source {
  /** What the next fetch answers (a function to throw or block). */
  next: () => Promise<RouteSnapshot>;
  fetches: number;
  active: number;
  maxActive: number;
}

function setup(initial: () => Promise<RouteSnapshot>, dir = makeTempDir(), timing: Partial<FollowerTiming> = FAST) {
  const logger = createPinoLogger('silent');
  const health = new UpstreamHealthRegistry();
  const deadlines = new DeadlineWheel<Exchange>();
  const { services, close: closeServices } = createTestServices({ logger, health, deadlines });
  const dispatcher = new RequestDispatcher({ onRequest: null, onResponse: null, onComplete: null }, { handle: () => false }, logger);
  const pools = new UpstreamPools();
  const snapshotPath = path.join(dir.path, 'routes.snapshot.json');
  const reloader = new ConfigReloader({
    load: async () => ({ ok: false, errors: [] }),
    dispatcher,
    factories: POLICY_FACTORIES,
    services,
    health,
    pools,
    snapshotPath,
    statusPath: path.join(dir.path, 'reload-status.json'),
    overrides: {},
    source: 'control-plane',
  });
  const bus = new ReconnectingBus();
  const source: Source = { next: initial, fetches: 0, active: 0, maxActive: 0 };
  const follower = new ControlPlaneFollower({
    bus,
    fetchSnapshot: async () => {
      source.fetches += 1;
      source.active += 1;
      source.maxActive = Math.max(source.maxActive, source.active);
      try {
        return await source.next();
      } finally {
        source.active -= 1;
      }
    },
    reloader,
    settings: { ...PROXY_DEFAULTS, trustedProxies: [] },
    factories: POLICY_FACTORIES,
    logger,
    snapshotPath,
    timing,
  });
  const served = (p: string): string | undefined => dispatcher.getTable()?.match('GET', p)?.id;
  const publish = (message: RouteChangeMessage): Promise<void> => bus.publish(ROUTE_CHANGES_CHANNEL, message);
  const done = async (removeDir = true): Promise<void> => {
    await follower.close();
    await reloader.flush();
    pools.destroy();
    closeServices();
    if (removeDir) dir.remove();
  };
  return { follower, bus, source, dispatcher, served, publish, metrics: services.metrics, reloader, snapshotPath, done };
}

test('starts from the fetched snapshot and applies the next versions in place', async () => {
  const t = setup(async () => snapshot(5, [route('a'), route('b')]));
  await t.follower.start();
  assert.equal(t.follower.currentVersion, 5);
  assert.equal(t.served('/a'), 'a');
  const fetches = t.source.fetches;

  await t.publish({ kind: 'upserted', version: 6, route: route('c') });
  await until(() => t.served('/c') === 'c', 'c served');
  await t.publish({ kind: 'deleted', version: 7, routeId: 'a' });
  await until(() => t.served('/a') === undefined, 'a removed');
  await t.publish({ kind: 'upserted', version: 8, route: { ...route('b'), enabled: false } });
  await until(() => t.served('/b') === undefined, 'disabled b removed');
  await t.publish({ kind: 'upserted', version: 9, route: route('c', '/c-moved') });
  await until(() => t.served('/c-moved') === 'c', 'c changed in place');
  assert.equal(t.served('/c'), undefined);
  assert.equal(t.follower.currentVersion, 9);
  assert.equal(t.source.fetches, fetches, 'consecutive versions need no snapshot');
  await t.done();
});

test('stale messages (version <= current) are ignored', async () => {
  const t = setup(async () => snapshot(10, [route('a')]));
  await t.follower.start();
  await t.publish({ kind: 'deleted', version: 10, routeId: 'a' });
  await t.publish({ kind: 'upserted', version: 3, route: route('old') });
  await t.publish({ kind: 'reloaded', version: 9 });
  await t.publish({ kind: 'heartbeat', version: 10 });
  // A later in-order message proves the earlier ones were processed (delivery is ordered).
  await t.publish({ kind: 'upserted', version: 11, route: route('z') });
  await until(() => t.served('/z') === 'z', 'z served');
  assert.equal(t.served('/a'), 'a');
  assert.equal(t.served('/old'), undefined);
  assert.equal(t.source.fetches, 1);
  await t.done();
});

test('a gap, a reloaded message and a heartbeat ahead of the table each fetch a snapshot', async () => {
  let version = 1;
  const t = setup(async () => snapshot(version, [route(`v${version}`)]));
  await t.follower.start();
  for (const kind of ['upserted', 'reloaded', 'heartbeat'] as const) {
    const before = t.source.fetches;
    version += 2;
    const message: RouteChangeMessage = kind === 'upserted' ? { kind, version, route: route('skipped') } : { kind, version };
    await t.publish(message);
    await until(() => t.follower.currentVersion === version, `${kind} ahead -> snapshot v${version}`);
    assert.equal(t.source.fetches, before + 1);
    assert.equal(t.served(`/v${version}`), `v${version}`);
    assert.equal(t.served('/skipped'), undefined, 'the message that showed the gap is not applied on its own');
  }
  await t.done();
});

test('a bus reconnect fetches a snapshot (messages may have been lost meanwhile)', async () => {
  let current = snapshot(1, [route('a')]);
  const t = setup(async () => current);
  await t.follower.start();
  current = snapshot(4, [route('b')]);
  t.bus.reconnect();
  await until(() => t.served('/b') === 'b', 'snapshot after reconnect');
  assert.equal(t.follower.currentVersion, 4);
  await t.done();
});

test('silence (no message, heartbeats included) fetches a snapshot; heartbeats keep it quiet', async (t) => {
  // The follower's clock (Date and its silence check's interval) is the test's own: on real time, a
  // stall of a loaded machine longer than silenceMs was silence to it (a fetch: 2 !== 1).
  t.mock.timers.enable({ apis: ['setInterval', 'Date'] });
  let current = snapshot(1, [route('a')]);
  const s = setup(async () => current, makeTempDir(), { ...FAST, silenceMs: SILENCE_MS });
  try {
    await s.follower.start();
    const before = s.source.fetches;
    // Three silence windows with a heartbeat every 50 ms, each delivered before time moves on.
    for (let elapsed = 0; elapsed < 3 * SILENCE_MS; elapsed += 50) {
      await s.publish({ kind: 'heartbeat', version: 1 });
      await new Promise((resolve) => setImmediate(resolve));
      t.mock.timers.tick(50);
    }
    assert.equal(s.source.fetches, before, 'heartbeats at the current version need no snapshot');
    current = snapshot(2, [route('b')]);
    t.mock.timers.tick(SILENCE_MS + 100); // silenceMs without a message, and the check that notices it
    await until(() => s.served('/b') === 'b', 'snapshot after silence');
  } finally {
    await s.done();
  }
});

test('snapshot requests during a fetch are coalesced into one more fetch, never two at once', async () => {
  let release: () => void = () => undefined;
  let version = 1;
  const t = setup(async () => snapshot(version, [route('a')]));
  await t.follower.start();
  t.source.next = () =>
    new Promise<RouteSnapshot>((resolve) => {
      const answer = snapshot(version, [route(`v${version}`)]);
      release = () => resolve(answer);
    });
  const before = t.source.fetches;
  version = 3;
  await t.publish({ kind: 'reloaded', version: 3 });
  await until(() => t.source.active === 1, 'first fetch running');
  version = 5;
  for (const v of [4, 5]) await t.publish({ kind: 'reloaded', version: v });
  t.bus.reconnect();
  await new Promise((r) => setImmediate(r));
  release();
  await until(() => t.source.fetches === before + 2 && t.source.active === 1, 'one follow-up fetch');
  release();
  await until(() => t.follower.currentVersion === 5, 'follow-up applied');
  assert.equal(t.source.maxActive, 1);
  assert.equal(t.source.fetches, before + 2);
  await t.done();
});

test('a snapshot older than a change applied in place during the fetch is discarded', async () => {
  const t = setup(async () => snapshot(1, [route('a')]));
  await t.follower.start();
  let release: () => void = () => undefined;
  t.source.next = () => new Promise<RouteSnapshot>((resolve) => (release = () => resolve(snapshot(1, [route('a')]))));
  const reloaded = t.follower.resync();
  await until(() => t.source.active === 1, 'fetch running');
  await t.publish({ kind: 'upserted', version: 2, route: route('b') });
  await until(() => t.served('/b') === 'b', 'b applied in place');
  release();
  const outcome = await reloaded;
  assert.equal(outcome.ok, true);
  assert.equal(t.served('/b'), 'b', 'the older snapshot did not undo the newer change');
  assert.equal(t.follower.currentVersion, 2);
  await t.done();
});

test('while the control plane is down the last table keeps serving; it converges when it returns', async () => {
  let up = true;
  let current = snapshot(1, [route('a')]);
  const t = setup(async () => {
    if (!up) throw new Error('ECONNREFUSED');
    return current;
  });
  await t.follower.start();
  up = false;
  await t.publish({ kind: 'reloaded', version: 2 });
  await until(() => t.source.fetches >= 4, 'retries while down');
  assert.equal(t.served('/a'), 'a');
  current = snapshot(2, [route('b')]);
  up = true;
  await until(() => t.served('/b') === 'b', 'converged');
  assert.equal(t.served('/a'), undefined);
  await t.done();
});

test('with the control plane down at start it serves the saved snapshot, then follows the control plane', async () => {
  const dir = makeTempDir();
  const first = setup(async () => snapshot(7, [route('saved')]), dir);
  await first.follower.start();
  await first.done(false);
  const saved = JSON.parse(readFileSync(first.snapshotPath, 'utf8')) as { version: number; source: string; routes: Route[] };
  assert.equal(saved.version, 7);
  assert.equal(saved.source, 'control-plane');

  let up = false;
  const second = setup(async () => {
    if (!up) throw new Error('ECONNREFUSED');
    return snapshot(9, [route('fresh')]);
  }, dir);
  await second.follower.start();
  assert.equal(second.served('/saved'), 'saved');
  assert.equal(second.follower.currentVersion, 7);
  await second.publish({ kind: 'upserted', version: 8, route: route('next') });
  await until(() => second.served('/next') === 'next', 'in-place change on top of the saved snapshot');
  up = true;
  await until(() => second.served('/fresh') === 'fresh', 'control plane back');
  await second.done();
});

test('a control plane that does not answer at start is waited for only startupTimeoutMs; the saved snapshot serves meanwhile', async () => {
  const dir = makeTempDir();
  const first = setup(async () => snapshot(3, [route('saved')]), dir);
  await first.follower.start();
  await first.done(false);
  let answer: (s: RouteSnapshot) => void = () => undefined;
  const second = setup(() => new Promise<RouteSnapshot>((resolve) => (answer = resolve)), dir, { ...FAST, startupTimeoutMs: 200, fetchTimeoutMs: 600_000 });
  await second.follower.start();
  assert.equal(second.served('/saved'), 'saved');
  await until(() => second.source.active >= 1 && second.source.fetches >= 2, 'fetching again after the startup timeout');
  answer(snapshot(4, [route('late')]));
  await until(() => second.served('/late') === 'late', 'the late answer is applied');
  await second.done();
});

test('with neither the control plane nor a saved snapshot there is no table until the control plane answers', async () => {
  let up = false;
  const t = setup(async () => {
    if (!up) throw new Error('ECONNREFUSED');
    return snapshot(1, [route('a')]);
  });
  await t.follower.start();
  assert.equal(t.dispatcher.getTable(), undefined);
  up = true;
  await until(() => t.served('/a') === 'a', 'first table');
  await t.done();
});

test('a saved snapshot of the old { appliedAt, routes } shape (proxy.yml mode) is still read', async () => {
  const dir = makeTempDir();
  writeFileSync(path.join(dir.path, 'routes.snapshot.json'), JSON.stringify({ appliedAt: new Date().toISOString(), routes: [route('legacy')] }));
  const t = setup(async () => {
    throw new Error('down');
  }, dir);
  await t.follower.start();
  assert.equal(t.served('/legacy'), 'legacy');
  assert.equal(t.follower.currentVersion, undefined, 'no version: the next message fetches a snapshot');
  await t.done();
});

test('invalid or unenforceable routes are skipped, the others served', async () => {
  const bad = { ...route('bad'), path: 'no-slash' } as Route;
  const guarded = route('guarded', '/guarded', { auth: { enabled: true, type: 'oauth2' } });
  const t = setup(async () => snapshot(1, [route('ok'), bad, guarded, 'junk' as unknown as Route]));
  await t.follower.start();
  assert.equal(t.served('/ok'), 'ok');
  assert.equal(t.dispatcher.getTable()?.routes.length, 1);
  await t.publish({ kind: 'upserted', version: 2, route: route('guarded', '/ok', { auth: { enabled: true, type: 'oauth2' } }) });
  await t.publish({ kind: 'upserted', version: 3, route: route('ok', '/ok', { auth: { enabled: true, type: 'oauth2' } }) });
  await until(() => t.follower.currentVersion === 3, 'v3');
  assert.equal(t.served('/ok'), undefined, 'a route changed into one this data plane cannot enforce stops being served');
  await t.done();
});

test('close() does not wait for a fetch that hangs', async () => {
  const t = setup(async () => snapshot(1, [route('a')]), makeTempDir(), { ...FAST, fetchTimeoutMs: 600_000 });
  await t.follower.start();
  t.source.next = () => new Promise<RouteSnapshot>(() => undefined);
  void t.follower.resync();
  await until(() => t.source.active === 1, 'fetch hanging');
  await t.done();
  assert.equal(t.served('/a'), 'a');
});

test('malformed messages are ignored', () => {
  for (const raw of [null, 'x', {}, { kind: 'upserted', version: 1 }, { kind: 'deleted', version: '2', routeId: 'a' }, { kind: 'nope', version: 1 }, { kind: 'heartbeat', version: -1 }]) {
    assert.equal(readChangeMessage(raw), undefined, JSON.stringify(raw));
  }
  assert.deepEqual(readChangeMessage({ kind: 'heartbeat', version: 3, extra: true }), { kind: 'heartbeat', version: 3 });
});
