import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeTelemetryWindow, EVENTS_CHANNEL, TELEMETRY_CHANNEL, type SignedBus, type TelemetryWindow } from '@gateway/events';
import { createTestDatabase, makeTempDir, type TestDatabase } from '@gateway/testing';
import { caller, managementToken } from './auth-fixtures';
import { startClusterMember } from './cluster-member';
import type { ControlPlaneProcess } from './control-plane-process';
import { signedRedisBus } from './signed-redis-bus';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';
import { breakerOpened, createWebhook, REDIS_URL, until, WEBHOOKS_JWT_SECRET } from './webhooks-fixtures';

const SETTINGS_ENCRYPTION_KEY = randomBytes(48).toString('base64url');

/** One data plane's window (object form; published encoded, as data planes do) for the second that just ended: `requests` on `routeId`, all answered 500. */
function failingWindow(instanceId: string, routeId: string, requests: number): TelemetryWindow {
  const start = Math.floor(Date.now() / 1000) * 1000 - 1000;
  return {
    instanceId,
    start,
    durationMs: 1000,
    address: '127.0.0.1:1',
    version: 'e2e',
    configRevision: 1,
    droppedWindows: 0,
    routes: [{ routeId, requests, statusClasses: [0, 0, 0, requests], outcomes: [requests, 0, 0, 0, 0, 0, 0], retries: 0, bytesIn: 0, bytesOut: 0, latency: { count: requests, sumMs: requests * 20, zero: 0, buckets: [300, requests] } }],
    upstreams: [],
    process: { heapUsedBytes: 1, rssBytes: 1, eventLoopLagMs: 1, openConnections: 1 },
  };
}

/*
 * Two control planes on one PostgreSQL and one Redis bus, fed telemetry windows and breaker
 * reports as data planes publish them: each instance hears everything, the detectors run on the
 * lease holder only, and the receiver gets each event once.
 */
describe('event layer with two control planes (each event delivered once)', () => {
  const prefix = `e2e:evc:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const dir = makeTempDir('events-cluster-');
  let database: TestDatabase;
  let bus: SignedBus;
  let first: ControlPlaneProcess;
  let second: ControlPlaneProcess;
  let receiver: WebhookReceiver;
  const admin = managementToken(WEBHOOKS_JWT_SECRET, 'admin', { sub: '0c1e5a52-3b8f-4f0e-8f0f-5d3b6a7c9e12', email: 'events-admin@example.com' });

  const start = (name: string): Promise<ControlPlaneProcess> =>
    startClusterMember({ root: dir.path, name, databaseUrl: database.url, channelPrefix: prefix, env: { SETTINGS_ENCRYPTION_KEY, OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' } });

  before(async () => {
    database = await createTestDatabase('events_cluster');
    bus = signedRedisBus(REDIS_URL, prefix, 'webhooks-e2e-cluster-token-0123456789');
    receiver = await startWebhookReceiver();
    first = await start('first');
    second = await start('second');
  });
  after(async () => {
    await first?.stop();
    await second?.stop();
    await bus?.close();
    await receiver?.close();
    await database?.drop();
    dir.remove();
  });

  test('an error spike in the windows of two data planes: one ERROR_RATE_SPIKE, delivered once, listed on both instances', async () => {
    const put = await caller(first)('PUT', '/api/settings', { token: admin, body: { events: { evaluationInterval: '2s', errorRate: { threshold: 10, window: '30s', minSamples: 5, minConfidence: 0.9 } } } });
    assert.equal(put.status, 200, put.text);
    const hook = await createWebhook(caller(second), admin, { url: `${receiver.url}/spike`, events: ['ERROR_RATE_SPIKE', 'circuit_breaker.opened'] });
    receiver.secrets = [hook.secret as string];
    const spikes = (): number => receiver.received.filter((r) => JSON.parse(r.body).type === 'ERROR_RATE_SPIKE').length;
    // 20 seconds of windows from two data planes; the spike is found within a few evaluations.
    for (let second = 0; second < 20; second++) {
      await bus.publish(TELEMETRY_CHANNEL, encodeTelemetryWindow(failingWindow('dp-a', 'orders', 10)));
      await bus.publish(TELEMETRY_CHANNEL, encodeTelemetryWindow(failingWindow('dp-b', 'orders', 10)));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    await until('the ERROR_RATE_SPIKE delivery', () => (spikes() > 0 ? true : undefined), 30_000);
    // Evaluations go on (2 s each) for a while: still one incident, one delivery.
    await new Promise((resolve) => setTimeout(resolve, 8000));
    assert.equal(spikes(), 1);
    const got = receiver.received.find((r) => JSON.parse(r.body).type === 'ERROR_RATE_SPIKE');
    assert.deepEqual([got?.gatewayVerified, got?.standardVerified], [[true], [true]]);
    for (const cp of [first, second]) {
      const listed = (await caller(cp)('GET', '/api/events?type=ERROR_RATE_SPIKE', { token: admin })).json<{ data: Array<{ id: string }> }>().data;
      assert.deepEqual(listed.map((e) => e.id), [got?.headers['webhook-id']]);
    }
  });

  test('the same breaker opening reported by two data planes: one circuit_breaker.opened with both instanceIds, delivered once', async () => {
    const a = breakerOpened('payments');
    const b = { ...breakerOpened('payments'), data: { ...breakerOpened('payments').data, instanceId: 'dp-other' } };
    await bus.publish(EVENTS_CHANNEL, a);
    await bus.publish(EVENTS_CHANNEL, b);
    const opened = (): Array<{ id: string; data: { instanceIds: string[] } }> => receiver.received.map((r) => JSON.parse(r.body)).filter((body) => body.type === 'circuit_breaker.opened');
    await until('the breaker delivery', () => (opened().length > 0 ? true : undefined), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 4000));
    assert.equal(opened().length, 1);
    assert.equal(opened()[0]?.id, a.id);
    assert.deepEqual(opened()[0]?.data.instanceIds, ['dp-e2e', 'dp-other']);
  });
});
