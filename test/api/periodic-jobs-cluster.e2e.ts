import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, makeTempDir, type TestDatabase } from '@gateway/testing';
import { caller, managementToken, type Call } from './auth-fixtures';
import { startClusterMember } from './cluster-member';
import type { ControlPlaneProcess } from './control-plane-process';
import { expectStatus, until, WEBHOOKS_JWT_SECRET as JWT_SECRET } from './webhooks-fixtures';
import { ageDeletedRoute, FAST_PURGE_ENV, PURGE_LEASE, purgeLease, purged as routePurged } from '../cluster/leased-purge';

describe('periodic jobs with two control planes on one PostgreSQL (one runner; handover when it dies)', () => {
  const prefix = `e2e:rpc:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const dir = makeTempDir('route-purge-cluster-');
  let database: TestDatabase;
  let first: ControlPlaneProcess;
  let second: ControlPlaneProcess;
  const admin = managementToken(JWT_SECRET, 'admin', { sub: '5b0d7c1e-2a4f-4c3e-9d8b-1f2e3a4b5c6d', email: 'purge-admin@example.com' });

  const sql = <T>(statement: string, params: unknown[] = []): Promise<T[]> => database.sql<T>(statement, params);

  const start = (name: string): Promise<ControlPlaneProcess> =>
    startClusterMember({ root: dir.path, name, databaseUrl: database.url, channelPrefix: prefix, env: FAST_PURGE_ENV });

  /** A route soft-deleted through the API, then aged past the 30-day retention in the database. */
  async function expiredHiddenRoute(call: Call, id: string): Promise<void> {
    expectStatus(await call('POST', '/api/routes', { token: admin, body: { id, path: `/${id}`, upstream: 'http://127.0.0.1:9' } }), 201, 'create route');
    expectStatus(await call('DELETE', `/api/routes/${id}`, { token: admin }), 204, 'soft-delete route');
    await ageDeletedRoute(database, id);
  }

  const purged = (id: string) => () => routePurged(database, id);
  const leaseToken = async () => (await purgeLease(database))?.token ?? Number.NaN;
  /** The first instance's lease holder id (it took the lease alone). */
  let firstHolder: string | undefined;

  before(async () => {
    database = await createTestDatabase('route_purge_cluster');
    first = await start('first');
    // The first instance takes the purge lease at boot; the second starts once it has, so the first is the holder.
    firstHolder = (await until('the first instance holding the purge lease', () => purgeLease(database))).holder;
    second = await start('second');
  });
  after(async () => {
    await first?.stop();
    await second?.stop();
    await database?.drop();
    dir.remove();
  });

  test('every periodic job of the control plane runs under its lease', async () => {
    await until('the prune leases taken', async () => ((await sql(`SELECT 1 FROM leases WHERE name IN ('auth.revocation-prune', 'telemetry.prune')`)).length === 2 ? true : undefined));
    const names = (await sql<{ name: string }>(`SELECT name FROM leases ORDER BY name`)).map((row) => row.name);
    for (const name of ['auth.revocation-prune', PURGE_LEASE, 'telemetry.prune']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
  });

  test('the holder purges; SIGKILL of it: the API answers through the other, which takes the lease and purges', async () => {
    await expiredHiddenRoute(caller(second), 'old-one');
    await until('the holder to purge old-one', purged('old-one'));
    const lease = await purgeLease(database);
    assert.ok(lease !== undefined && firstHolder !== undefined);
    const tokenBefore = lease.token;
    const purges = await sql<{ actor: string }>(`SELECT actor FROM audit_log WHERE action = 'route.purge.expired'`);
    assert.equal(purges.length, 1, 'one purge, by one instance');

    // The lease outlives a holder that stops renewing by 1 s only (LEASE_TTL): on a loaded machine a
    // stall of the first instance can have handed it to the second already. The holder is killed.
    const [holder, survivor] = lease.holder === firstHolder ? [first, second] : [second, first];
    holder.child.kill('SIGKILL');
    await holder.stop({ keepDir: true });

    const list = await caller(survivor)('GET', '/api/routes', { token: admin });
    expectStatus(list, 200, 'list routes through the survivor');
    await expiredHiddenRoute(caller(survivor), 'old-two');
    await until('the survivor to take over the purge', purged('old-two'));
    const tokenAfter = await leaseToken();
    assert.ok(tokenAfter > tokenBefore, `token ${tokenAfter} after ${tokenBefore}`);
  });
});
