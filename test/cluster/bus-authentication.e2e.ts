import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import {
  COMMANDS_CHANNEL,
  PRESENCE_CHANNEL,
  ROUTE_CHANGES_CHANNEL,
  type CommandMessage,
  type DataPlanePresence,
  type RouteChangeMessage,
  type RouteSnapshot,
  type SignedBus,
} from '@gateway/events';
import { request, startTextUpstream, type LoopbackUpstream } from '@gateway/testing';
import { signedRedisBus } from '../api/signed-redis-bus';
import { ProcessCluster } from './process-cluster';
import { eventually } from './stand-in-control-plane';

/*
 * Issue 11, "the bus is a way in": whoever can publish to Redis must not be able to reroute
 * traffic, trip breakers or pose as a data plane. A real cluster (a private redis-server, a control
 * plane and two data planes, each its own `gateway start` process); a raw ioredis client publishes
 * unsigned and forged messages straight to the channels, then the same messages signed with the
 * cluster's key (what the planes accept), then a replay of a signed one.
 */

/** The value of one Prometheus sample (0 when absent) from a /metrics text. */
function sample(metrics: string, name: string, labels: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const metricsOf = async (url: string): Promise<string> => (await request(`${url}/metrics`, { timeoutMs: 3000 })).text;
const drops = async (url: string, reason: string): Promise<number> => sample(await metricsOf(url), 'gateway_bus_messages_dropped_total', `reason="${reason}"`);
/** 0 CLOSED, 1 HALF_OPEN, 2 OPEN (gateway_circuit_breaker_state) of the route's breaker on a data plane. */
const breakerState = async (url: string, routeId: string): Promise<number> => sample(await metricsOf(url), 'gateway_circuit_breaker_state', `breaker="route:${routeId}"`);

describe('bus authentication across a control plane and two data planes (real processes, real Redis)', () => {
  let cluster: ProcessCluster;
  let good: LoopbackUpstream;
  let evil: LoopbackUpstream;
  let raw: Redis;
  let rightKey: SignedBus;
  let wrongKey: SignedBus;
  let snapshot: RouteSnapshot;
  const channel = (name: string): string => `${cluster.secrets.channelPrefix}${name}`;

  before(async () => {
    [good, evil] = await Promise.all([startTextUpstream('good'), startTextUpstream('evil')]);
    cluster = await ProcessCluster.start({ label: 'e2e-bus-auth' });
    raw = new Redis(cluster.redis.url);
    rightKey = signedRedisBus(cluster.redis.url, cluster.secrets.channelPrefix, cluster.secrets.clusterToken);
    wrongKey = signedRedisBus(cluster.redis.url, cluster.secrets.channelPrefix, 'a-guessed-cluster-token-0123456789');
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'r', path: '/r/*', upstream: good.origin, circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 10, timeout: 60000 } });
    await eventually(() => cluster.everyPlaneAnswers('/r/x', '200 good'), 'both data planes serve the route', 15_000);
    // Publishes are hints, dropped while a bus connects: both test buses are connected before any test.
    await eventually(async () => (await rightKey.ping!()) && (await wrongKey.ping!()), 'the test buses connected');
    const res = await request(`${cluster.controlPlane.url}/internal/cluster/snapshot`, { headers: { authorization: `Bearer ${cluster.secrets.clusterToken}` } });
    snapshot = res.json<RouteSnapshot>();
  });
  after(async () => {
    raw?.disconnect();
    await rightKey?.close();
    await wrongKey?.close();
    await cluster?.close();
    await good?.close();
    await evil?.close();
  });

  const reroute = (): RouteChangeMessage => ({ kind: 'upserted', version: snapshot.version + 1, route: { ...snapshot.routes.find((r) => r.id === 'r')!, upstream: evil.origin } });
  const trip = (id: string): CommandMessage => ({ kind: 'circuit-breaker', id, routeId: 'r', action: 'trip' });
  const presence = (instanceId: string): DataPlanePresence => ({ instanceId, configVersion: snapshot.version, startedAt: new Date().toISOString(), at: new Date().toISOString() });
  /** The data planes the control plane asks and waits for (GET /api/routes/r/circuit-breaker). */
  const askedPlanes = async (): Promise<string[]> => {
    const answer = (await cluster.api.expect(200, 'GET', '/api/routes/r/circuit-breaker')).json<{ data: { dataPlanes: Array<{ instanceId: string }>; missing: string[] } }>().data;
    return [...answer.dataPlanes.map((p) => p.instanceId), ...answer.missing].sort();
  };

  test('unsigned and forged route changes, breaker commands and presence change nothing, and every plane counts them', async () => {
    const planes = cluster.dataPlanes.map((dp) => dp.url);
    const honest = await askedPlanes();
    assert.equal(honest.length, 2);

    await raw.publish(channel(ROUTE_CHANGES_CHANNEL), JSON.stringify(reroute()));
    await raw.publish(channel(COMMANDS_CHANNEL), JSON.stringify(trip('unsigned-trip')));
    await raw.publish(channel(PRESENCE_CHANNEL), JSON.stringify(presence('unsigned-intruder')));
    await raw.publish(channel(ROUTE_CHANGES_CHANNEL), '{"kind":"upserted","version":');
    await wrongKey.publish(ROUTE_CHANGES_CHANNEL, reroute());
    await wrongKey.publish(COMMANDS_CHANNEL, trip('forged-trip'));
    await wrongKey.publish(PRESENCE_CHANNEL, presence('forged-intruder'));

    // Each data plane hears the route channel and the command channel: 2 unsigned, 2 forged, 1 garbage;
    // the control plane hears presence: 1 unsigned, 1 forged. Waited for, unless the attack got through.
    const counted = async (url: string, expected: Record<string, number>): Promise<boolean> => {
      for (const [reason, n] of Object.entries(expected)) if ((await drops(url, reason)) < n) return false;
      return true;
    };
    const attacked = async (): Promise<boolean> => !(await cluster.everyPlaneAnswers('/r/x', '200 good')) || (await Promise.all(planes.map((url) => breakerState(url, 'r')))).some((s) => s !== 0);
    for (const url of planes) await eventually(async () => (await attacked()) || (await counted(url, { unsigned: 2, unknown_key: 2, malformed: 1 })), `${url} counts the drops`, 10_000);
    await eventually(async () => (await attacked()) || (await counted(cluster.controlPlane.url, { unsigned: 1, unknown_key: 1 })), 'the control plane counts the drops', 10_000);

    assert.deepEqual(await cluster.servedByEach('/r/x'), ['200 good', '200 good'], 'the route still goes to its upstream');
    assert.deepEqual(await Promise.all(planes.map((url) => breakerState(url, 'r'))), [0, 0], 'the breaker is still CLOSED');
    assert.deepEqual(await askedPlanes(), honest, 'no made-up data plane joined');
    for (const url of planes) assert.ok(await counted(url, { unsigned: 2, unknown_key: 2, malformed: 1 }), `${url}: gateway_bus_messages_dropped_total`);
    assert.ok(await counted(cluster.controlPlane.url, { unsigned: 1, unknown_key: 1 }), 'control plane: gateway_bus_messages_dropped_total');
  });

  test('the same messages signed with the cluster key work; a replay of a signed command is dropped', async () => {
    const planes = cluster.dataPlanes.map((dp) => dp.url);
    const captured: string[] = [];
    const listener = raw.duplicate();
    try {
      await listener.subscribe(channel(COMMANDS_CHANNEL));
      listener.on('message', (_channel: string, text: string) => captured.push(text));
      await rightKey.publish(COMMANDS_CHANNEL, trip('signed-trip'));
      await eventually(async () => (await Promise.all(planes.map((url) => breakerState(url, 'r')))).every((s) => s === 2), 'the breaker OPEN on both data planes', 10_000);
      await eventually(() => captured.length > 0, 'the signed command captured');

      await cluster.api.expect(200, 'POST', '/api/routes/r/circuit-breaker/reset');
      await eventually(async () => (await Promise.all(planes.map((url) => breakerState(url, 'r')))).every((s) => s === 0), 'the breaker CLOSED again', 10_000);
      const before = await Promise.all(planes.map((url) => drops(url, 'replayed')));
      await raw.publish(channel(COMMANDS_CHANNEL), captured[0]!);
      await eventually(async () => (await Promise.all(planes.map((url) => drops(url, 'replayed')))).every((n, i) => n === before[i]! + 1), 'both data planes count the replay', 10_000);
      assert.deepEqual(await Promise.all(planes.map((url) => breakerState(url, 'r'))), [0, 0], 'the replayed trip changed nothing');
    } finally {
      listener.disconnect();
    }

    await rightKey.publish(PRESENCE_CHANNEL, presence('signed-newcomer'));
    assert.ok((await askedPlanes()).includes('signed-newcomer'), 'a signed presence is heard');

    await rightKey.publish(ROUTE_CHANGES_CHANNEL, reroute());
    await eventually(() => cluster.everyPlaneAnswers('/r/x', '200 evil'), 'a signed route change is applied by both data planes', 10_000);
  });
});
