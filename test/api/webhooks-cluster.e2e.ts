import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SignedBus } from '@gateway/events';
import { createTestDatabase, makeTempDir, type TestDatabase } from '@gateway/testing';
import { caller, managementToken } from './auth-fixtures';
import { startClusterMember } from './cluster-member';
import type { ControlPlaneProcess } from './control-plane-process';
import { signedRedisBus } from './signed-redis-bus';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';
import { breakerOpened, createWebhook, deliveriesOf, publishEvent, REDIS_URL, until, WEBHOOKS_CLUSTER_TOKEN, WEBHOOKS_JWT_SECRET } from './webhooks-fixtures';

/** Instances sharing a database share SETTINGS_ENCRYPTION_KEY, which seals webhook secrets (docs/webhooks.md). */
const SETTINGS_ENCRYPTION_KEY = randomBytes(48).toString('base64url');

describe('webhooks with two control planes on one PostgreSQL (each event delivered once; handover when the sender dies)', () => {
  const prefix = `e2e:whc:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const dir = makeTempDir('webhooks-cluster-');
  let database: TestDatabase;
  let bus: SignedBus;
  let first: ControlPlaneProcess;
  let second: ControlPlaneProcess;
  let receiver: WebhookReceiver;
  const admin = managementToken(WEBHOOKS_JWT_SECRET, 'admin', { sub: '0c1e5a52-3b8f-4f0e-8f0f-5d3b6a7c9e11', email: 'cluster-admin@example.com' });

  const sql = <T>(statement: string): Promise<T[]> => database.sql<T>(statement);

  const start = (name: string): Promise<ControlPlaneProcess> =>
    startClusterMember({
      root: dir.path,
      name,
      databaseUrl: database.url,
      channelPrefix: prefix,
      env: { SETTINGS_ENCRYPTION_KEY, OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', WEBHOOK_RETRY_DELAYS: '300ms,1s,2s', WEBHOOK_TIMEOUT: '1s' },
    });

  before(async () => {
    database = await createTestDatabase('webhooks_cluster');
    bus = signedRedisBus(REDIS_URL, prefix, WEBHOOKS_CLUSTER_TOKEN);
    receiver = await startWebhookReceiver();
    first = await start('first');
    // The first instance takes the delivery lease at boot; the second starts once it has.
    await until('the first instance holding the delivery lease', async () => ((await sql(`SELECT 1 FROM leases WHERE name = 'webhooks.delivery'`)).length > 0 ? true : undefined));
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

  test('every control plane hears each bus event, and the receiver gets each exactly once', async () => {
    const hook = await createWebhook(caller(first), admin, { url: `${receiver.url}/once`, events: ['circuit_breaker.opened'] });
    receiver.secrets = [hook.secret as string];
    const events = Array.from({ length: 10 }, (_, i) => breakerOpened(`route-${i}`));
    for (const event of events) await publishEvent(bus, event);
    await until('all delivered', async () => {
      const list = await deliveriesOf(caller(second), admin, hook.id);
      return list.length === events.length && list.every((d) => d.status === 'delivered') ? true : undefined;
    });
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    assert.equal(ids.length, events.length, `received ${ids.join(', ')}`);
    assert.deepEqual(new Set(ids), new Set(events.map((e) => e.id)));
    assert.ok(receiver.received.every((r) => r.gatewayVerified[0] === true && r.standardVerified[0] === true), 'the second instance reads the secret the first stored');
    const removed = await caller(second)('DELETE', `/api/webhooks/${hook.id}`, { token: admin });
    assert.equal(removed.status, 204, "the next test has the receiver to itself");
  });

  test('the sender killed mid-attempt: the other instance takes the lease (higher fencing token) and completes the delivery', async () => {
    const hook = await createWebhook(caller(second), admin, { url: `${receiver.url}/handover`, events: ['circuit_breaker.opened'] });
    receiver.secrets = [hook.secret as string];
    const before = receiver.received.length;
    receiver.answers = [...receiver.received.map(() => 200 as const), 'hang', 200];
    const [{ token: tokenBefore }] = await sql<{ token: string }>(`SELECT token FROM leases WHERE name = 'webhooks.delivery'`) as [{ token: string }];
    const event = breakerOpened('handover');
    await publishEvent(bus, event);
    await until('the attempt in flight', () => receiver.received[before]);
    first.child.kill('SIGKILL');
    await first.stop({ keepDir: true });
    const delivery = await until('delivered by the survivor', async () => (await deliveriesOf(caller(second), admin, hook.id)).find((d) => d.status === 'delivered'), 60_000);
    assert.equal(delivery.eventId, event.id);
    assert.deepEqual(receiver.received.slice(before).map((r) => r.headers['webhook-id']), [event.id, event.id]);
    const [{ token: tokenAfter }] = await sql<{ token: string }>(`SELECT token FROM leases WHERE name = 'webhooks.delivery'`) as [{ token: string }];
    assert.ok(Number(tokenAfter) > Number(tokenBefore), `token ${tokenAfter} after ${tokenBefore}`);
  });
});
