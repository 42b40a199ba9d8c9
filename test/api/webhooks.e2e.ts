import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SignedBus } from '@gateway/events';
import { caller, managementToken, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { signedRedisBus } from './signed-redis-bus';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';
import {
  breakerOpened,
  createWebhook,
  deliveriesOf,
  expectStatus,
  publishEvent,
  REDIS_URL,
  until,
  WEBHOOKS_CLUSTER_TOKEN,
  WEBHOOKS_JWT_SECRET,
  type DeliveryJson,
  type WebhookJson,
} from './webhooks-fixtures';

const ADMIN_ID = '5b0c0c8e-7b1e-4c55-9d8a-0e2f4a6b8c10';
/** Short schedule and deadline so the retries of a test take seconds; loopback allowed only to 127.0.0.1. */
const RETRY_DELAYS_MS = [400, 1200, 3000];
const ENV = {
  JWT_SECRET: WEBHOOKS_JWT_SECRET,
  CLUSTER_TOKEN: WEBHOOKS_CLUSTER_TOKEN,
  REDIS_URL,
  OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
  WEBHOOK_RETRY_DELAYS: RETRY_DELAYS_MS.map((ms) => `${ms}ms`).join(','),
  WEBHOOK_TIMEOUT: '1s',
  // Longer than the retry test's failures last (about 1.5 s), shorter than the whole schedule (at least 4.1 s).
  WEBHOOK_DISABLE_AFTER: '4s',
};

describe('webhooks (SQLite, one control plane; events from the bus over Redis)', () => {
  const prefix = `e2e:wh:${process.pid}:${randomBytes(4).toString('hex')}:`;
  let cp: ControlPlaneProcess;
  let call: Call;
  let bus: SignedBus;
  const admin = managementToken(WEBHOOKS_JWT_SECRET, 'admin', { sub: ADMIN_ID, email: 'hooks-admin@example.com' });
  const receivers: WebhookReceiver[] = [];
  const extraDirs: ControlPlaneProcess[] = [];

  async function receiver(): Promise<WebhookReceiver> {
    const started = await startWebhookReceiver();
    receivers.push(started);
    return started;
  }

  /** A webhook for one route's breaker events only, so tests sharing the control plane stay apart. */
  async function hookFor(target: WebhookReceiver, routeId: string, extra: Record<string, unknown> = {}): Promise<WebhookJson> {
    const hook = await createWebhook(call, admin, { url: `${target.url}/${routeId}`, events: ['circuit_breaker.opened'], ...extra });
    target.secrets = [hook.secret as string];
    return hook;
  }

  before(async () => {
    bus = signedRedisBus(REDIS_URL, prefix, WEBHOOKS_CLUSTER_TOKEN);
    cp = await startControlPlaneProcess({ env: { ...ENV, REDIS_CHANNEL_PREFIX: prefix }, startTimeoutMs: 60_000 });
    call = caller(cp);
  });
  after(async () => {
    await cp?.stop();
    for (const extra of extraDirs) await extra.stop();
    await bus?.close();
    for (const r of receivers) await r.close();
  });

  test('admin CRUD: the secret is shown once, every bad field is named, users are refused, changes are audited', async () => {
    const created = await call('POST', '/api/webhooks', { token: admin, body: { url: 'http://127.0.0.1:9/x', events: ['*'], severity: ['CRITICAL'], description: 'ops' } });
    expectStatus(created, 201, 'create');
    const hook = created.json<{ success: boolean; data: WebhookJson }>();
    assert.equal(hook.success, true);
    assert.match(hook.data.secret ?? '', /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual([hook.data.enabled, hook.data.events, hook.data.severity], [true, ['*'], ['CRITICAL']]);

    const read = await call('GET', `/api/webhooks/${hook.data.id}`, { token: admin });
    expectStatus(read, 200, 'get');
    assert.equal('secret' in read.json<{ data: object }>().data, false);
    assert.ok(!read.text.includes(hook.data.secret as string));

    const list = await call('GET', '/api/webhooks?limit=100', { token: admin });
    expectStatus(list, 200, 'list');
    assert.ok(list.json<{ data: WebhookJson[]; pagination: { total: number } }>().data.some((w) => w.id === hook.data.id));

    const bad = await call('POST', '/api/webhooks', { token: admin, body: { url: 'ftp://x', events: [], severity: ['LOUD'], enabled: 'yes', colour: 'red' } });
    expectStatus(bad, 400, 'bad create');
    const problem = bad.json<{ success: false; code: string; details: { fields: Array<{ field: string }> } }>();
    assert.equal(problem.code, 'VALIDATION_ERROR');
    assert.deepEqual(problem.details.fields.map((f) => f.field).sort(), ['colour', 'enabled', 'events', 'severity', 'url']);

    const nulls = await call('PATCH', `/api/webhooks/${hook.data.id}`, { token: admin, body: { url: null, events: null, enabled: null } });
    expectStatus(nulls, 400, 'patch with nulls');
    assert.deepEqual(nulls.json<{ details: { fields: Array<{ field: string }> } }>().details.fields.map((f) => f.field), ['url', 'events', 'enabled']);
    const patched = await call('PATCH', `/api/webhooks/${hook.data.id}`, { token: admin, body: { enabled: false, severity: null } });
    expectStatus(patched, 200, 'patch');
    assert.deepEqual([patched.json<{ data: WebhookJson }>().data.enabled, patched.json<{ data: WebhookJson }>().data.severity], [false, null]);
    const replaced = await call('PUT', `/api/webhooks/${hook.data.id}`, { token: admin, body: { url: 'http://127.0.0.1:9/y', events: ['circuit_breaker.*'] } });
    expectStatus(replaced, 200, 'put');
    assert.deepEqual(replaced.json<{ data: WebhookJson }>().data.events, ['circuit_breaker.*']);
    assert.equal(replaced.json<{ data: WebhookJson }>().data.enabled, true, 'PUT takes the default for an absent enabled');

    const user = managementToken(WEBHOOKS_JWT_SECRET, 'user');
    expectStatus(await call('GET', '/api/webhooks', { token: user }), 403, 'user list');
    expectStatus(await call('POST', '/api/webhooks', { token: user, body: { url: 'http://127.0.0.1:9/', events: ['*'] } }), 403, 'user create');

    expectStatus(await call('DELETE', `/api/webhooks/${hook.data.id}`, { token: admin }), 204, 'delete');
    const gone = await call('GET', `/api/webhooks/${hook.data.id}`, { token: admin });
    expectStatus(gone, 404, 'get deleted');
    assert.equal(gone.json<{ code: string }>().code, 'WEBHOOK_NOT_FOUND');

    const audit = await call('GET', '/api/audit-log?limit=100', { token: admin });
    const actions = audit.json<{ data: Array<{ action: string; target: string | null; details: unknown }> }>().data.filter((e) => e.target === hook.data.id).map((e) => e.action);
    assert.deepEqual(actions.sort(), ['webhook.create', 'webhook.delete', 'webhook.replace', 'webhook.update']);
    assert.ok(!audit.text.includes(hook.data.secret as string), 'no secret in the audit log');
    assert.ok(!cp.output.join('\n').includes(hook.data.secret as string), 'no secret in the logs');
  });

  test('private, loopback and link-local targets are refused unless OUTBOUND_ALLOW_CIDRS allows them, naming the field', async () => {
    for (const url of ['http://10.0.0.7/hook', 'http://169.254.169.254/latest', 'http://127.0.0.2:8080/', 'http://[::1]:8080/', 'http://[::ffff:127.0.0.2]/', 'http://[::ffff:a9fe:a9fe]/']) {
      const res = await call('POST', '/api/webhooks', { token: admin, body: { url, events: ['*'] } });
      expectStatus(res, 400, url);
      const body = res.json<{ code: string; error: string; details: { fields: Array<{ field: string }> } }>();
      assert.equal(body.code, 'VALIDATION_ERROR');
      assert.deepEqual(body.details.fields.map((f) => f.field), ['url']);
      assert.match(body.error, /OUTBOUND_ALLOW_CIDRS/);
    }
    // 127.0.0.1 is what this control plane's OUTBOUND_ALLOW_CIDRS allows: accepted.
    await createWebhook(call, admin, { url: 'http://127.0.0.1:9/allowed', events: ['none.of.these'] });
  });

  test('a bus event reaches the receiver as {id, type, createdAt, data}, both signatures verifying', async () => {
    const target = await receiver();
    const hook = await hookFor(target, 'deliver');
    const event = breakerOpened('deliver');
    await publishEvent(bus, event);
    const got = await until('the delivery', () => target.received[0]);
    // A breaker opening is grouped across data planes (docs/events.md): the first report, with instanceIds.
    assert.deepEqual(JSON.parse(got.body), { ...event, data: { ...event.data, instanceIds: [event.data.instanceId] } });
    assert.deepEqual([got.gatewayVerified, got.standardVerified], [[true], [true]]);
    assert.equal(got.headers['webhook-id'], event.id);
    assert.match(String(got.headers['x-gateway-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
    const [delivery] = await until('the recorded attempt', async () => {
      const list = await deliveriesOf(call, admin, hook.id);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    assert.equal(got.headers['x-gateway-delivery'], delivery?.id);
    assert.deepEqual(delivery?.attemptLog.map((a) => [a.attempt, a.statusCode, a.responseExcerpt, a.error]), [[1, 200, 'ok', null]]);
  });

  test('retries on 500 and on a timeout, with growing delays, the same event id each time; every attempt recorded', async () => {
    const target = await receiver();
    target.answers = [500, 'hang', 200];
    const hook = await hookFor(target, 'retry');
    const event = breakerOpened('retry');
    await publishEvent(bus, event);
    const delivery = await until('delivered after retries', async () => (await deliveriesOf(call, admin, hook.id)).find((d) => d.status === 'delivered'));
    assert.equal(target.received.length, 3);
    assert.deepEqual(new Set(target.received.map((r) => r.headers['webhook-id'])), new Set([event.id]));
    assert.ok(target.received.every((r) => r.body === target.received[0]?.body && r.gatewayVerified[0] === true && r.standardVerified[0] === true));
    assert.deepEqual(delivery.attemptLog.map((a) => [a.attempt, a.statusCode]), [[1, 500], [2, null], [3, 200]]);
    assert.equal(delivery.attemptLog[0]?.error, 'answered 500');
    assert.equal(delivery.attemptLog[0]?.responseExcerpt, 'answer 500');
    assert.equal(delivery.attemptLog[1]?.error, 'timed out after 1000 ms');
    // Lower bounds only (the growing schedule with its -10% jitter), never how fast: a slow machine cannot fail this.
    const [first, second, third] = target.received.map((r) => r.at) as [number, number, number];
    assert.ok(second - first >= RETRY_DELAYS_MS[0] * 0.9, `first retry after ${second - first} ms`);
    assert.ok(third - second >= RETRY_DELAYS_MS[1] * 0.9, `second retry after ${third - second} ms`);
  });

  test('a control plane killed in the middle of the retries loses nothing: after its restart the delivery completes', async () => {
    const target = await receiver();
    target.answers = [500, 'hang', 200];
    const hook = await hookFor(target, 'restart');
    const event = breakerOpened('restart');
    await publishEvent(bus, event);
    await until('the second attempt in flight', () => target.received[1]);
    cp.child.kill('SIGKILL');
    await cp.stop({ keepDir: true });
    extraDirs.push(cp);
    cp = await startControlPlaneProcess({ dataDir: cp.dataDir, env: { ...ENV, REDIS_CHANNEL_PREFIX: prefix }, startTimeoutMs: 60_000 });
    call = caller(cp);
    const delivery = await until('delivered after the restart', async () => (await deliveriesOf(call, admin, hook.id)).find((d) => d.status === 'delivered'));
    assert.equal(delivery.eventId, event.id);
    assert.equal(target.received.length, 3);
    assert.deepEqual(new Set(target.received.map((r) => r.headers['webhook-id'])), new Set([event.id]));
    // The attempt cut by the kill has no outcome to record; the ones before and after it are there.
    assert.deepEqual(delivery.attemptLog.map((a) => a.statusCode), [500, 200]);
  });

  test('rotation: during the overlap both secrets sign (both schemes); with no overlap only the new one', async () => {
    const target = await receiver();
    const hook = await hookFor(target, 'rotate');
    const old = hook.secret as string;
    const rotated = await call('POST', `/api/webhooks/${hook.id}/rotate-secret`, { token: admin, body: { overlapSeconds: 3600 } });
    expectStatus(rotated, 200, 'rotate');
    const next = rotated.json<{ data: WebhookJson }>().data;
    assert.notEqual(next.secret, old);
    assert.ok(next.previousSecretExpiresAt !== null);
    target.secrets = [next.secret as string, old];
    const ping = await call('POST', `/api/webhooks/${hook.id}/test`, { token: admin });
    expectStatus(ping, 200, 'test ping');
    const pinged = ping.json<{ data: DeliveryJson }>().data;
    assert.deepEqual([pinged.eventType, pinged.status, pinged.countsForHealth, pinged.attemptLog[0]?.statusCode], ['webhook.ping', 'delivered', false, 200]);
    const during = target.received.at(-1);
    assert.deepEqual([during?.gatewayVerified, during?.standardVerified], [[true, true], [true, true]]);
    assert.equal(String(during?.headers['webhook-signature']).split(' ').length, 2);

    const again = await call('POST', `/api/webhooks/${hook.id}/rotate-secret`, { token: admin, body: { overlapSeconds: 0 } });
    expectStatus(again, 200, 'rotate without overlap');
    const third = again.json<{ data: WebhookJson }>().data.secret as string;
    target.secrets = [third, next.secret as string];
    expectStatus(await call('POST', `/api/webhooks/${hook.id}/test`, { token: admin }), 200, 'second ping');
    const after = target.received.at(-1);
    assert.deepEqual([after?.gatewayVerified, after?.standardVerified], [[true, false], [true, false]]);
    const bad = await call('POST', `/api/webhooks/${hook.id}/rotate-secret`, { token: admin, body: { overlapSeconds: -1 } });
    expectStatus(bad, 400, 'bad overlap');
    assert.equal(bad.json<{ details: { fields: Array<{ field: string }> } }>().details.fields[0]?.field, 'overlapSeconds');
  });

  test('a receiver answering 410 disables the endpoint (with webhook.endpoint_disabled); a redelivery sends the same event again', async () => {
    const target = await receiver();
    target.answers = [410, 200];
    const hook = await hookFor(target, 'gone');
    const watcher = await receiver();
    await createWebhook(call, admin, { url: `${watcher.url}/watch`, events: ['webhook.*'] }).then((w) => (watcher.secrets = [w.secret as string]));
    const event = breakerOpened('gone');
    await publishEvent(bus, event);
    const disabled = await until('disabled', async () => {
      const res = await call('GET', `/api/webhooks/${hook.id}`, { token: admin });
      const body = res.json<{ data: WebhookJson }>().data;
      return body.enabled ? undefined : body;
    });
    assert.equal(disabled.disabledReason, 'the receiver answered 410 Gone');
    const notice = await until('the endpoint_disabled event', () => watcher.received.find((r) => JSON.parse(r.body).type === 'webhook.endpoint_disabled'));
    assert.equal(JSON.parse(notice.body).data.webhookId, hook.id);
    const [failed] = await deliveriesOf(call, admin, hook.id);
    assert.deepEqual([failed?.status, failed?.attempts], ['failed', 1]);

    const redelivered = await call('POST', `/api/webhooks/${hook.id}/deliveries/${failed?.id}/redeliver`, { token: admin });
    expectStatus(redelivered, 200, 'redeliver');
    const done = await until('redelivered', async () => (await deliveriesOf(call, admin, hook.id)).find((d) => d.status === 'delivered'));
    assert.deepEqual([done.attempts, done.countsForHealth], [2, false]);
    assert.equal(target.received[1]?.headers['webhook-id'], event.id);
    assert.equal(target.received[1]?.body, target.received[0]?.body);
    const still = (await call('GET', `/api/webhooks/${hook.id}`, { token: admin })).json<{ data: WebhookJson }>().data;
    assert.equal(still.enabled, false, 'a redelivery does not mark the endpoint healthy');
    expectStatus(await call('POST', `/api/webhooks/${hook.id}/deliveries/nope/redeliver`, { token: admin }), 404, 'unknown delivery');
    // While one is pending (its schedule running), redelivering it would cut the schedule short: refused.
    target.answers = [...target.received.map(() => 200 as const), 500];
    await call('PATCH', `/api/webhooks/${hook.id}`, { token: admin, body: { enabled: true } });
    // Another breaker: the same one opening again within its group window would join the first event.
    await publishEvent(bus, breakerOpened('gone-again'));
    const pending = await until('a pending retry', async () => (await deliveriesOf(call, admin, hook.id)).find((d) => d.status === 'pending' && d.attempts >= 1));
    const refused = await call('POST', `/api/webhooks/${hook.id}/deliveries/${pending.id}/redeliver`, { token: admin });
    expectStatus(refused, 409, 'redeliver a pending delivery');
    assert.equal(refused.json<{ code: string }>().code, 'CONFLICT');
  });

  test('an endpoint failing for longer than WEBHOOK_DISABLE_AFTER is disabled; its delivery ends failed after the last attempt', async () => {
    const target = await receiver();
    target.answers = [503];
    const hook = await hookFor(target, 'failing');
    await publishEvent(bus, breakerOpened('failing'));
    const disabled = await until('disabled', async () => {
      const body = (await call('GET', `/api/webhooks/${hook.id}`, { token: admin })).json<{ data: WebhookJson }>().data;
      return body.enabled ? undefined : body;
    });
    assert.match(disabled.disabledReason ?? '', /^every attempt failed since /);
    const [delivery] = await deliveriesOf(call, admin, hook.id);
    assert.equal(delivery?.status, 'failed');
    assert.equal(delivery?.attempts, RETRY_DELAYS_MS.length + 1);
    assert.ok(delivery?.attemptLog.every((a) => a.statusCode === 503));
  });
});
