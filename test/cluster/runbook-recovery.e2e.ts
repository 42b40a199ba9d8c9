import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { ADMIN, ADMIN_ENV, caller, login } from '../api/auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../api/control-plane-process';
import { until } from '../api/webhooks-fixtures';

/*
 * Issue 16, interrupted executions: a control plane that died mid-run left rows `running`. The next
 * control plane (the runbook schedule's lease holder) fails the ones without a heartbeat for longer
 * than the bound at start, with the reason, and leaves a fresh `running` row (a live run) alone.
 * The rows are written into the real SQLite file between two runs of the real control plane.
 */
const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const CLUSTER_TOKEN = 'runbook-recovery-cluster-token-0123456789';

type Execution = { id: string; status: string; reason: string | null; actions: Array<{ status: string }> };

/** TypeORM's SQLite datetime text (UTC). */
const sqliteDate = (date: Date): string => date.toISOString().replace('T', ' ').replace('Z', '');

describe('runbook executions interrupted by a control-plane stop (real control plane, real SQLite)', () => {
  const prefix = `e2e-runbook-recovery:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const env = { ...ADMIN_ENV, REDIS_URL, CLUSTER_TOKEN, REDIS_CHANNEL_PREFIX: prefix };
  let cp: ControlPlaneProcess;
  const stale = randomUUID();
  const live = randomUUID();

  before(async () => {
    // A first run creates the schema; it then "dies" and two running rows are left behind.
    const first = await startControlPlaneProcess({ env });
    await first.stop({ keepDir: true });
    const db = new Database(path.join(first.dataDir, 'gateway.sqlite'));
    try {
      const insert = db.prepare(
        `INSERT INTO runbook_executions (id, runbook_id, runbook_name, event_id, event_type, event, status, dry_run, results, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'running', 0, ?, ?, ?)`,
      );
      const row = (id: string, updatedAt: Date): void => {
        const eventId = `evt_${randomUUID()}`;
        const event = { id: eventId, type: 'ERROR_RATE_SPIKE', createdAt: updatedAt.toISOString(), confidence: 0.9, severity: 'CRITICAL', summary: 'spike', routeIds: ['users'], upstreams: [] };
        const results = { actions: [{ index: 0, type: 'SCALE_RESOURCE', action: { type: 'SCALE_RESOURCE', replicas: 3 }, status: 'planned', description: 'scale the data plane to 3' }] };
        insert.run(id, randomUUID(), 'scale out', eventId, 'ERROR_RATE_SPIKE', JSON.stringify(event), JSON.stringify(results), sqliteDate(updatedAt), sqliteDate(updatedAt));
      };
      row(stale, new Date(Date.now() - 3_600_000));
      row(live, new Date());
    } finally {
      db.close();
    }
    cp = await startControlPlaneProcess({ env, dataDir: first.dataDir, startTimeoutMs: 60_000 });
  });

  after(async () => {
    await cp?.stop();
  });

  test('the stale running execution is failed with the reason at start; a live one is left running', async () => {
    const call = caller(cp);
    const token = await login(call, ADMIN);
    const get = async (id: string): Promise<Execution> => {
      const res = await call('GET', `/api/runbook-executions/${id}`, { token });
      assert.equal(res.status, 200);
      return res.json<{ data: Execution }>().data;
    };
    const failed = await until('the stale execution failed', async () => {
      const execution = await get(stale);
      return execution.status === 'failed' ? execution : undefined;
      // Recovery runs under the runbooks-schedule lease: when the stopped instance's lease has not
      // expired yet, the new one takes it only after the lease's TTL. A wait bound, not a speed check.
    }, 60_000);
    assert.match(failed.reason ?? '', /^INTERRUPTED: the control plane running it stopped mid-run \(no heartbeat since .*\); not resumed/);
    assert.deepEqual(failed.actions.map((a) => a.status), ['planned'], 'what never reported stays planned');
    const fresh = await get(live);
    assert.deepEqual([fresh.status, fresh.reason], ['running', null]);
  });
});
