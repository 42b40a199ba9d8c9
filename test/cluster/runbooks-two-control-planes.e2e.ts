import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENTS_CHANNEL, type SignedBus } from '@gateway/events';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from '@gateway/testing';
import { ADMIN, ADMIN_ENV, caller, login, type Call } from '../api/auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../api/control-plane-process';
import { signedRedisBus } from '../api/signed-redis-bus';
import { until } from '../api/webhooks-fixtures';

/**
 * Two control planes on one PostgreSQL database and one Redis hear every event: each event gives
 * one execution per runbook (the event's lease, the unique row), and of two approvals sent to the
 * two instances at once exactly one wins (compare-and-set).
 */
describe('runbooks on two control planes (PostgreSQL + Redis)', () => {
  const CLUSTER_TOKEN = 'runbooks-pair-cluster-token-0123456789';
  let database: TestDatabase;
  let planes: ControlPlaneProcess[] = [];
  let calls: Call[] = [];
  let token: string;
  let events: SignedBus;

  before(async () => {
    database = await createTestDatabase('cp_runbooks_pair');
    const prefix = `runbooks-pair:${process.pid}:${randomBytes(4).toString('hex')}:`;
    const env = { ...ADMIN_ENV, DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, REDIS_CHANNEL_PREFIX: prefix, CLUSTER_TOKEN, API_RATE_LIMIT_ADMIN_MAX: '100000' };
    planes = [await startControlPlaneProcess({ env }), await startControlPlaneProcess({ env })];
    calls = planes.map(caller);
    token = await login(calls[0] as Call, ADMIN);
    events = signedRedisBus(TEST_REDIS_URL, prefix, CLUSTER_TOKEN, 'runbooks-pair-events');
  });
  after(async () => {
    for (const cp of planes) await cp.stop();
    await events?.close();
    await database?.drop();
  });

  test('one execution per event across instances; two simultaneous approvals: one 200, one 409', async () => {
    const [first, second] = calls as [Call, Call];
    const created = await first('POST', '/api/runbooks', { token, body: { name: 'pair', trigger: { eventType: 'TEST_PAIR' }, actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 5, routeId: 'none' }] } });
    assert.equal(created.status, 201, created.text);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const id = `evt_${randomUUID()}`;
      ids.push(id);
      await events.publish(EVENTS_CHANNEL, { id, type: 'TEST_PAIR', createdAt: new Date().toISOString(), data: { severity: 'CRITICAL', summary: 'pair', confidence: 0.9 } });
    }
    type Row = { id: string; eventId: string; status: string };
    const rows = await until('five executions', async () => {
      const list = (await second('GET', '/api/runbook-executions?limit=100', { token })).json<{ data: Row[] }>().data;
      return list.length >= 5 ? list : undefined;
    });
    // Give a slower instance time to (wrongly) record a second execution.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const all = (await second('GET', '/api/runbook-executions?limit=100', { token })).json<{ data: Row[] }>().data;
    assert.deepEqual(all.map((r) => r.eventId).sort(), [...ids].sort(), 'exactly one execution per event');
    assert.ok(rows.every((r) => r.status === 'pending_approval'));

    const target = all[0] as Row;
    const answers = await Promise.all([first, second].map((c) => c('POST', `/api/runbook-executions/${target.id}/approve`, { token })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409]);
    const loser = answers.find((a) => a.status === 409);
    assert.equal(loser?.json<{ code: string }>().code, 'CONFLICT');
  });
});
