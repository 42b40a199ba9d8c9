import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENTS_CHANNEL, type SignedBus } from '@gateway/events';
import { request, startUpstream, type LoopbackUpstream } from '@gateway/testing';
import { ADMIN, ADMIN_ENV, caller, login, type Call } from '../api/auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../api/control-plane-process';
import { signedRedisBus } from '../api/signed-redis-bus';
import { startWebhookReceiver, type WebhookReceiver } from '../api/webhook-receiver';
import { createWebhook, until } from '../api/webhooks-fixtures';
import { startFollowingDataPlane, type FollowingDataPlane } from './following-data-plane';

/*
 * Issue 16 end to end: the REAL control plane (child process, SQLite, Redis bus) and REAL data
 * planes following it. Events are published on the bus as a data plane or detector would; the
 * runbook engine matches them, holds breakers on every data plane, asks for approvals (announced
 * to a loopback webhook receiver), and undoes what it did.
 */
const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const CLUSTER_TOKEN = 'runbooks-cluster-token-0123456789abcdef';

type DataPlane = FollowingDataPlane<SignedBus>;
type Execution = {
  id: string;
  status: string;
  reason: string | null;
  dryRun: boolean;
  decidedBy: string | null;
  actions: Array<{ status: string; description: string; outcome?: { status: string; code?: string; details?: Record<string, unknown> }; followedUp?: { message: string }; undone?: { message: string } }>;
};
type BreakerAnswer = { state: string | null; enabled: boolean; dataPlanes: Array<{ instanceId: string; breaker: { state: string } | null }>; missing: string[] };

describe('runbooks across data planes (real control plane, real Redis)', () => {
  const prefix = `e2e-runbooks:${process.pid}:${randomBytes(4).toString('hex')}:`;
  let upstream: LoopbackUpstream;
  let cp: ControlPlaneProcess;
  let call: Call;
  let token: string;
  let events: SignedBus;
  let receiver: WebhookReceiver;
  const planes: DataPlane[] = [];

  const api = async <T>(method: string, urlPath: string, body?: unknown): Promise<{ status: number; json: { data: T; code?: string; error?: string; details?: { fields?: Array<{ field: string }>; status?: string } } }> => {
    const res = await call(method, urlPath, { token, body });
    return { status: res.status, json: res.status === 204 ? ({} as never) : res.json() };
  };
  const createRunbook = async (body: Record<string, unknown>): Promise<string> => {
    const res = await api<{ id: string }>('POST', '/api/runbooks', body);
    assert.equal(res.status, 201, JSON.stringify(res.json));
    return res.json.data.id;
  };
  const emit = async (type: string, data: Record<string, unknown>): Promise<string> => {
    const id = `evt_${randomUUID()}`;
    await events.publish(EVENTS_CHANNEL, { id, type, createdAt: new Date().toISOString(), data });
    return id;
  };
  const executionOf = (eventId: string, wanted: (e: Execution) => boolean = () => true, timeoutMs = 20_000): Promise<Execution> =>
    until(
      `the execution for ${eventId}`,
      async () => {
        const res = await api<Execution[]>('GET', `/api/runbook-executions?eventId=${eventId}`);
        const found = res.json.data[0];
        return found !== undefined && wanted(found) ? found : undefined;
      },
      timeoutMs,
    );
  const breaker = async (routeId: string): Promise<BreakerAnswer> => (await api<BreakerAnswer>('GET', `/api/routes/${routeId}/circuit-breaker`)).json.data;
  const statesOn = async (routeId: string): Promise<string[]> => (await breaker(routeId)).dataPlanes.map((p) => p.breaker?.state ?? 'none');
  const spike = (routeId: string, confidence: number) => ({ severity: 'CRITICAL', summary: 'error rate spike', confidence, data: { current_value: 0.4, threshold: 0.05, breach_ratio: 8, trend: 'rising' }, context: { route: routeId } });
  const settings = async (runbooks: Record<string, unknown>): Promise<void> => {
    const current = (await api<{ settings: Record<string, unknown> }>('GET', '/api/settings')).json.data.settings;
    const res = await api('PUT', '/api/settings', { ...current, runbooks: { ...(current['runbooks'] as object), ...runbooks } });
    assert.equal(res.status, 200, JSON.stringify(res.json));
  };

  before(async () => {
    upstream = await startUpstream({ handler: (_req, res) => res.end('ok') });
    receiver = await startWebhookReceiver();
    events = signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN, 'runbooks-events');
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, REDIS_URL, CLUSTER_TOKEN, REDIS_CHANNEL_PREFIX: prefix, API_RATE_LIMIT_ADMIN_MAX: '100000', OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' } });
    call = caller(cp);
    token = await login(call, ADMIN);
    // The breaker's own timeout (1 s) is far below the holds' durations: a HALF_OPEN seen during a hold would be the bug.
    for (const route of [
      { id: 'cb', path: '/cb/*', upstream: upstream.origin, circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 100, timeout: 1000 } },
      { id: 'cb2', path: '/cb2/*', upstream: upstream.origin, circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 100, timeout: 1000 } },
      { id: 'plain', path: '/plain/*', upstream: upstream.origin },
    ]) {
      assert.equal((await api('POST', '/api/routes', route)).status, 201, route.id);
    }
    for (let i = 0; i < 2; i += 1) planes.push(await startFollowingDataPlane(signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN, `runbooks-dp-${i}`), cp.url, CLUSTER_TOKEN, `rb-dp-${i}`));
    await until('both data planes in the directory and serving', async () => {
      const answer = await breaker('cb');
      const served = await Promise.all(planes.map((dp) => request(`${dp.url}/plain/x`, { timeoutMs: 3000 })));
      return answer.dataPlanes.length === 2 && served.every((r) => r.status === 200) ? true : undefined;
    });
  });

  after(async () => {
    for (const dp of planes) await dp.close();
    await cp?.stop();
    await events?.close();
    await receiver?.close();
    await upstream?.close();
  });

  test('validation names every bad field at once', async () => {
    const res = await api('POST', '/api/runbooks', {
      name: '',
      trigger: { eventType: 'bad type!', conditions: { 'confidence.min': 2, colour: 'red' } },
      actions: [{ type: 'CIRCUIT_BREAKER', operation: 'CLOSE', duration: 0 }, { type: 'TELEPORT' }],
      safety: { maxExecutionsPerHour: 0, rollbackAfterMinutes: -1, requiresApproval: 'yes' },
      extra: 1,
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.code, 'VALIDATION_ERROR');
    const fields = (res.json.details?.fields ?? []).map((f) => f.field).sort();
    assert.deepEqual(fields, [
      'actions[0].duration',
      'actions[0].operation',
      'actions[1].type',
      'extra',
      'name',
      'safety.maxExecutionsPerHour',
      'safety.requiresApproval',
      'safety.rollbackAfterMinutes',
      'trigger.conditions.colour',
      'trigger.conditions.confidence.min',
      'trigger.eventType',
    ]);
  });

  test('CRUD: create, read, patch (safety merged), replace, delete', async () => {
    const id = await createRunbook({ name: 'crud', trigger: { eventType: 'TEST_CRUD', conditions: { 'confidence.min': 0.5 } }, actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 60 }] });
    const got = await api<{ safety: Record<string, unknown>; trigger: { conditions: Record<string, unknown> } }>('GET', `/api/runbooks/${id}`);
    assert.deepEqual(got.json.data.safety, { requiresApproval: true, maxExecutionsPerHour: 3, rollbackAfterMinutes: null, dryRun: false });
    assert.deepEqual(got.json.data.trigger.conditions, { 'confidence.min': 0.5 });
    const patched = await api<{ safety: Record<string, unknown>; enabled: boolean }>('PATCH', `/api/runbooks/${id}`, { enabled: false, safety: { maxExecutionsPerHour: 7 } });
    assert.equal(patched.status, 200);
    assert.deepEqual([patched.json.data.enabled, patched.json.data.safety['maxExecutionsPerHour'], patched.json.data.safety['requiresApproval']], [false, 7, true]);
    assert.equal((await api('PATCH', `/api/runbooks/${id}`, { safety: { maxExecutionsPerHour: 'many' } })).status, 400);
    assert.equal((await api('POST', '/api/runbooks', { name: 'crud', trigger: { eventType: 'X' }, actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 1 }] })).status, 409);
    assert.equal((await api('DELETE', `/api/runbooks/${id}`)).status, 204);
    assert.equal((await api('GET', `/api/runbooks/${id}`)).json.code, 'RUNBOOK_NOT_FOUND');
  });

  test('a high-confidence event holds the breaker OPEN on every data plane (one started meanwhile too), then resets it', async () => {
    await createRunbook({
      name: 'auto-open',
      trigger: { eventType: 'ERROR_RATE_SPIKE', conditions: { 'confidence.min': 0.5, 'errorRate.min': 0.1 } },
      actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 8 }],
      safety: { requiresApproval: false, maxExecutionsPerHour: 5 },
    });
    const eventId = await emit('ERROR_RATE_SPIKE', spike('cb', 0.95));
    const done = await executionOf(eventId, (e) => e.status !== 'running');
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.deepEqual(await statesOn('cb'), ['OPEN', 'OPEN']);
    for (const dp of planes) assert.equal((await request(`${dp.url}/cb/x`, { timeoutMs: 3000 })).status, 503);
    // A data plane that starts during the hold takes it from its first snapshot.
    const late = await startFollowingDataPlane(signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN, 'runbooks-dp-late'), cp.url, CLUSTER_TOKEN, 'rb-dp-late');
    try {
      assert.equal((await request(`${late.url}/cb/x`, { timeoutMs: 3000 })).status, 503, 'the late data plane holds the breaker');
      // Past the breaker's own 1 s timeout: a held breaker is still OPEN, not HALF_OPEN.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal((await request(`${planes[0]?.url}/cb/x`, { timeoutMs: 3000 })).status, 503);
      const after = await executionOf(eventId, (e) => e.actions[0]?.followedUp !== undefined, 30_000);
      assert.match(after.actions[0]?.followedUp?.message ?? '', /duration ended: breaker reset on cb/);
      await until('closed everywhere', async () => ((await statesOn('cb')).every((s) => s === 'CLOSED') ? true : undefined));
      assert.equal((await request(`${late.url}/cb/x`, { timeoutMs: 3000 })).status, 200);
    } finally {
      await late.close();
    }
    // A low-confidence event of the same kind does not match the runbook's confidence.min.
    const ignored = await emit('ERROR_RATE_SPIKE', spike('cb', 0.3));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal((await api<Execution[]>('GET', `/api/runbook-executions?eventId=${ignored}`)).json.data.length, 0);
  });

  test('a route without a breaker: the execution records NO_CIRCUIT_BREAKER', async () => {
    await createRunbook({ name: 'no-breaker', trigger: { eventType: 'TEST_NOCB' }, actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 5 }], safety: { requiresApproval: false } });
    const done = await executionOf(await emit('TEST_NOCB', spike('plain', 0.99)), (e) => e.status !== 'running');
    assert.equal(done.status, 'failed');
    assert.equal(done.actions[0]?.outcome?.code, 'NO_CIRCUIT_BREAKER');
  });

  test('a low-confidence event waits for approval (announced by webhook); approve runs it once, a second decision is 409', async () => {
    const hook = await createWebhook(call, token, { url: receiver.url, events: ['runbook.*'] });
    receiver.secrets = [hook.secret as string];
    await createRunbook({ name: 'approve-me', trigger: { eventType: 'TEST_APPROVAL' }, actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 2 }], safety: { requiresApproval: false } });
    const eventId = await emit('TEST_APPROVAL', spike('cb2', 0.6));
    const pending = await executionOf(eventId);
    assert.equal(pending.status, 'pending_approval');
    assert.deepEqual(await statesOn('cb2'), ['CLOSED', 'CLOSED'], 'nothing ran before the approval');
    const announced = await until('the approval webhook', () => receiver.received.find((r) => r.body.includes(pending.id)));
    const body = JSON.parse(announced.body) as { type: string; data: { executionId: string; approve: string } };
    assert.deepEqual([body.type, body.data.executionId, body.data.approve], ['runbook.approval_requested', pending.id, `/api/runbook-executions/${pending.id}/approve`]);
    assert.deepEqual(announced.gatewayVerified, [true]);

    const approved = await api<Execution>('POST', `/api/runbook-executions/${pending.id}/approve`);
    assert.equal(approved.status, 200, JSON.stringify(approved.json));
    assert.deepEqual([approved.json.data.status, approved.json.data.decidedBy], ['succeeded', ADMIN.email]);
    assert.deepEqual(await statesOn('cb2'), ['OPEN', 'OPEN']);
    const again = await api('POST', `/api/runbook-executions/${pending.id}/reject`);
    assert.deepEqual([again.status, again.json.code, again.json.details?.status], [409, 'CONFLICT', 'succeeded']);
    const audit = await api<Array<{ action: string; actor: string; target: string }>>('GET', '/api/audit-log?limit=100');
    assert.ok(audit.json.data.some((e) => e.action === 'runbook-execution.approve' && e.actor === ADMIN.email && e.target === pending.id), 'the approval is audited');
    await until('cb2 reset after its 2 s', async () => ((await statesOn('cb2')).every((s) => s === 'CLOSED') ? true : undefined), 30_000);
  });

  test('reject runs nothing; an unanswered request expires (setting) and cannot be approved', async () => {
    await createRunbook({ name: 'reject-me', trigger: { eventType: 'TEST_REJECT' }, actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 60 }] });
    const rejected = await executionOf(await emit('TEST_REJECT', spike('cb2', 0.99)));
    assert.equal(rejected.status, 'pending_approval', 'requiresApproval holds even at high confidence');
    const res = await api<Execution>('POST', `/api/runbook-executions/${rejected.id}/reject`);
    assert.deepEqual([res.status, res.json.data.status, res.json.data.actions[0]?.status], [200, 'rejected', 'planned']);
    assert.deepEqual(await statesOn('cb2'), ['CLOSED', 'CLOSED']);

    await settings({ approvalExpirySeconds: 5 });
    const expiring = await executionOf(await emit('TEST_REJECT', spike('cb2', 0.99)));
    assert.equal(expiring.status, 'pending_approval');
    const expired = await until('the expiry', async () => {
      const got = await api<Execution>('GET', `/api/runbook-executions/${expiring.id}`);
      return got.json.data.status === 'expired' ? got.json.data : undefined;
    });
    assert.equal(expired.status, 'expired');
    const late = await api('POST', `/api/runbook-executions/${expiring.id}/approve`);
    assert.deepEqual([late.status, late.json.details?.status], [409, 'expired']);
    assert.deepEqual(await statesOn('cb2'), ['CLOSED', 'CLOSED']);
  });

  test('dry run records what would run and touches nothing', async () => {
    await createRunbook({ name: 'dry', trigger: { eventType: 'TEST_DRY' }, actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 60 }], safety: { requiresApproval: false, dryRun: true } });
    const done = await executionOf(await emit('TEST_DRY', spike('cb2', 0.99)));
    assert.deepEqual([done.status, done.dryRun, done.actions[0]?.status], ['dry_run', true, 'dry_run']);
    assert.match(done.actions[0]?.description ?? '', /hold the circuit breaker of cb2 OPEN for 60 s/);
    assert.deepEqual(await statesOn('cb2'), ['CLOSED', 'CLOSED']);
  });

  test('rollbackAfterMinutes resets a breaker held for much longer', async () => {
    await createRunbook({ name: 'rollback', trigger: { eventType: 'TEST_ROLLBACK' }, actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 600 }], safety: { requiresApproval: false, rollbackAfterMinutes: 0.05 } });
    const eventId = await emit('TEST_ROLLBACK', spike('cb2', 0.99));
    const done = await executionOf(eventId, (e) => e.status !== 'running');
    assert.equal(done.status, 'succeeded');
    assert.deepEqual(await statesOn('cb2'), ['OPEN', 'OPEN']);
    const rolledBack = await executionOf(eventId, (e) => e.status === 'rolled_back', 30_000);
    assert.match(rolledBack.actions[0]?.undone?.message ?? '', /rolled back: breaker reset on cb2/);
    assert.deepEqual(await statesOn('cb2'), ['CLOSED', 'CLOSED']);
  });

  test("hourly limits: the runbook's own, the global one, and the kill switch record skipped executions", async () => {
    await createRunbook({ name: 'limited', trigger: { eventType: 'TEST_LIMIT' }, actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 1 }], safety: { requiresApproval: false, maxExecutionsPerHour: 1 } });
    const first = await executionOf(await emit('TEST_LIMIT', spike('cb2', 0.99)), (e) => e.status !== 'running');
    assert.equal(first.status, 'succeeded');
    const second = await executionOf(await emit('TEST_LIMIT', spike('cb2', 0.99)));
    assert.equal(second.status, 'skipped');
    assert.match(second.reason ?? '', /this runbook's limit of 1 executions per hour/);

    await createRunbook({ name: 'global', trigger: { eventType: 'TEST_GLOBAL' }, actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 1 }], safety: { requiresApproval: false, maxExecutionsPerHour: 100 } });
    const counted = (await api<Execution[]>('GET', '/api/runbook-executions?limit=100')).json.data.filter((e) => ['running', 'succeeded', 'failed', 'rolled_back', 'dry_run'].includes(e.status)).length;
    await settings({ maxExecutionsPerHour: counted });
    const global = await executionOf(await emit('TEST_GLOBAL', spike('cb2', 0.99)));
    assert.equal(global.status, 'skipped');
    assert.match(global.reason ?? '', new RegExp(`the global limit of ${counted} executions per hour`));

    await settings({ maxExecutionsPerHour: 10, enabled: false });
    const off = await executionOf(await emit('TEST_GLOBAL', spike('cb2', 0.99)));
    assert.deepEqual([off.status, off.reason], ['skipped', 'runbooks are switched off (settings runbooks.enabled)']);
    await settings({ enabled: true });
  });
});
