import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  COMMAND_REPLIES_CHANNEL,
  COMMANDS_CHANNEL,
  EVENTS_CHANNEL,
  InProcessBus,
  PRESENCE_CHANNEL,
  type CircuitBreakerOpenedEvent,
  type CommandReply,
  type CommandRequest,
  type DataPlanePresence,
  type RouteSnapshot,
} from '@gateway/events';
import { makeTempDir, request, startUpstream, type LoopbackUpstream } from '@gateway/testing';
import type { RunningDataPlane } from '../data-plane-options';
import type { BreakerOpenedEvent } from '../policies/circuit-breaker/breaker-events';
import { apiRoute as route, startFollower } from '../testing/follower.fixture';

async function until<T>(what: string, find: () => T | undefined, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/*
 * A real data plane following a control plane through the in-process bus (one-process mode's
 * transport): it answers commands through its own functions, announces itself and publishes
 * breaker events. The test plays the control plane's side of the bus contract (libs/events).
 */
describe('a data plane as a cluster member (in-process bus)', () => {
  const bus = new InProcessBus();
  const dir = makeTempDir('cluster-member-');
  const replies: CommandReply[] = [];
  const presence: DataPlanePresence[] = [];
  const events: CircuitBreakerOpenedEvent[] = [];
  const hooked: BreakerOpenedEvent[] = [];
  let upstream: LoopbackUpstream;
  let plane: RunningDataPlane;
  let seq = 0;

  const send = async (command: CommandRequest): Promise<CommandReply> => {
    seq += 1;
    const id = `cmd-${seq}`;
    await bus.publish(COMMANDS_CHANNEL, { ...command, id });
    return until(`a reply to ${id}`, () => replies.find((r) => r.commandId === id));
  };
  const get = (p: string) => request(`http://127.0.0.1:${plane.port}${p}`);

  before(async () => {
    upstream = await startUpstream({ handler: (_req, res) => res.end('ok') });
    const snapshot: RouteSnapshot = {
      version: 7,
      createdAt: new Date().toISOString(),
      upstreams: [],
      routes: [
        route({ id: 'cb', path: '/cb/*', upstream: upstream.origin, circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 10, timeout: 60000 } }),
        route({ id: 'cached', path: '/cached/*', upstream: upstream.origin, cache: { enabled: true, ttl: 60000 } }),
        route({ id: 'rl', path: '/rl/*', upstream: upstream.origin, rateLimit: { enabled: true, max: 2, windowMs: 600000 } }),
        route({ id: 'plain', path: '/plain/*', upstream: upstream.origin }),
      ],
    };
    await bus.subscribe<CommandReply>(COMMAND_REPLIES_CHANNEL, (m) => replies.push(m));
    await bus.subscribe<DataPlanePresence>(PRESENCE_CHANNEL, (m) => presence.push(m));
    await bus.subscribe<CircuitBreakerOpenedEvent>(EVENTS_CHANNEL, (m) => events.push(m));
    plane = await startFollower({ bus, snapshot, dataDir: dir.path, instanceId: 'dp-test' }, { onBreakerOpened: (e) => hooked.push(e) });
  });

  after(async () => {
    await plane?.close();
    await upstream?.close();
    await bus.close();
    dir.remove();
  });

  test('announces itself at start: instance id, configuration version, start time, address', async () => {
    const first = await until('a presence message', () => presence[0]);
    assert.equal(plane.instanceId, 'dp-test');
    assert.deepEqual({ ...first, startedAt: typeof first.startedAt, at: typeof first.at }, {
      instanceId: 'dp-test',
      configVersion: 7,
      startedAt: 'string',
      at: 'string',
      host: '127.0.0.1',
      port: plane.port,
    });
  });

  test('trip opens the breaker here (503 without calling the upstream), replies with it and publishes circuit_breaker.opened; reset closes it', async () => {
    const tripped = await send({ kind: 'circuit-breaker', routeId: 'cb', action: 'trip' });
    assert.equal(tripped.instanceId, 'dp-test');
    assert.deepEqual(tripped.result, { subject: 'circuit-breaker', breaker: { name: 'route:cb', kind: 'route', state: 'OPEN', failures: 0, successes: 0, lastFailureTime: null } });
    const calls = upstream.requests.length;
    assert.equal((await get('/cb/x')).status, 503);
    assert.equal(upstream.requests.length, calls);
    const event = await until('the opened event', () => events[0]);
    assert.equal(typeof event.id, 'string');
    assert.equal(event.type, 'circuit_breaker.opened');
    assert.deepEqual(event.data, { breaker: 'route:cb', kind: 'route', routeIds: ['cb'], reason: 'manual', instanceId: 'dp-test' });
    assert.equal(event.createdAt, hooked[0]?.at, 'the onBreakerOpened option still sees every change');

    const reset = await send({ kind: 'circuit-breaker', routeId: 'cb', action: 'reset' });
    assert.equal(reset.result.subject === 'circuit-breaker' && reset.result.breaker?.state, 'CLOSED');
    assert.equal((await get('/cb/x')).status, 200);
    assert.equal(events.length, 1, 'a reset publishes nothing');
  });

  test('a route without the thing asked for, or one this data plane does not serve, is answered with null', async () => {
    assert.deepEqual((await send({ kind: 'circuit-breaker', routeId: 'plain', action: 'trip' })).result, { subject: 'circuit-breaker', breaker: null });
    assert.deepEqual((await send({ kind: 'status-query', routeId: 'nope', subject: 'health' })).result, { subject: 'health', check: null, breaker: null });
    assert.deepEqual((await send({ kind: 'status-query', routeId: 'plain', subject: 'rate-limit' })).result, { subject: 'rate-limit', usage: null });
    assert.deepEqual((await send({ kind: 'cache-purge', routeId: 'nope' })).result, { subject: 'cache', purged: 0 });
  });

  test('cache purge drops the route\'s entries: the next request is a MISS', async () => {
    assert.equal((await get('/cached/a')).headers['x-cache'], 'MISS');
    assert.equal((await get('/cached/a')).headers['x-cache'], 'HIT');
    assert.equal((await get('/cached/b')).headers['x-cache'], 'MISS');
    assert.deepEqual((await send({ kind: 'cache-purge', routeId: 'cached' })).result, { subject: 'cache', purged: 2 });
    assert.equal((await get('/cached/a')).headers['x-cache'], 'MISS');
  });

  test('status queries answer this data plane\'s usage and breaker', async () => {
    for (let i = 0; i < 3; i += 1) await get('/rl/x');
    const reply = await send({ kind: 'status-query', routeId: 'rl', subject: 'rate-limit' });
    assert.ok(reply.result.subject === 'rate-limit' && reply.result.usage !== null);
    const { since, ...usage } = reply.result.usage;
    assert.equal(typeof since, 'string');
    assert.deepEqual(usage, { routeId: 'rl', hits: 2, rejections: 1, busiestKeys: [{ key: 'ip:127.0.0.1', hits: 2, rejections: 1 }] });
    const breaker = await send({ kind: 'status-query', routeId: 'cb', subject: 'circuit-breaker' });
    assert.equal(breaker.result.subject === 'circuit-breaker' && breaker.result.breaker?.state, 'CLOSED');
  });

  test('malformed commands are ignored (no reply, nothing applied); the next valid one is answered', async () => {
    const before = replies.length;
    await bus.publish(COMMANDS_CHANNEL, { kind: 'circuit-breaker', id: 'bad-1', routeId: 'cb', action: 'explode' });
    await bus.publish(COMMANDS_CHANNEL, { kind: 'circuit-breaker', routeId: 'cb', action: 'trip' });
    await bus.publish(COMMANDS_CHANNEL, 'trip cb');
    const valid = await send({ kind: 'status-query', routeId: 'cb', subject: 'circuit-breaker' });
    assert.equal(replies.length, before + 1);
    assert.equal(valid.result.subject === 'circuit-breaker' && valid.result.breaker?.state, 'CLOSED', 'the command without an id was not applied');
  });

  test('after close it neither answers nor announces', async () => {
    await plane.close();
    const counts = [replies.length, presence.length];
    await bus.publish(COMMANDS_CHANNEL, { kind: 'cache-purge', id: 'late', routeId: 'cached' });
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual([replies.length, presence.length], counts);
  });
});
