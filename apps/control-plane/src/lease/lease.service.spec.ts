import 'reflect-metadata';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { loadDatabaseConfig } from '../config/control-plane-config';
import { dataSourceOptions } from '../database/data-source-options';
import { migrate } from '../migrate';
import { createDialectFixture, DIALECTS, type DialectFixture } from '../testing/database-fixtures';
import { Lease, type LeaseGrant } from './lease.service';

async function until<T>(attempt: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 200; i += 1) {
    const value = await attempt();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

for (const dialect of DIALECTS) {
  // Two instances: each with its own DataSource (its own connections), as two control planes have.
  describe(`Lease across two instances (${dialect})`, () => {
    let fixture: DialectFixture;
    const sources: DataSource[] = [];
    let first: Lease;
    let second: Lease;

    before(async () => {
      fixture = await createDialectFixture(dialect);
      await migrate({ dataDir: fixture.dataDir, env: fixture.env });
      for (let i = 0; i < 2; i += 1) {
        const source = new DataSource(dataSourceOptions(loadDatabaseConfig(fixture.env, fixture.dataDir)));
        await source.initialize();
        sources.push(source);
      }
      first = new Lease(sources[0] as DataSource);
      second = new Lease(sources[1] as DataSource);
    });
    after(async () => {
      for (const source of sources) await source.destroy();
      await fixture?.dispose();
    });

    test('one holder at a time; renewing keeps the token; release hands over with a higher token', async () => {
      const held = await first.acquire('job.a', 60_000);
      assert.ok(held);
      assert.equal(await second.acquire('job.a', 60_000), undefined);
      const renewed = await first.acquire('job.a', 60_000);
      assert.equal(renewed?.token, held.token);
      await first.release(held);
      const taken = await second.acquire('job.a', 60_000);
      assert.ok(taken);
      assert.ok(taken.token > held.token, `token ${taken.token} after ${held.token}`);
      assert.equal(await first.isCurrent(held), false);
      assert.equal(await second.isCurrent(taken), true);
      assert.equal(await first.acquire('job.a', 60_000), undefined);
    });

    test('a holder that stops renewing loses the lease when it expires; its stale grant is fenced off', async () => {
      const dead = await second.acquire('job.b', 300);
      assert.ok(dead);
      const next = await until(() => first.acquire('job.b', 60_000), 'the expired lease');
      assert.ok(next.token > dead.token);
      assert.equal(await second.isCurrent(dead), false);
      // The woken-up old holder cannot renew its way back in.
      assert.equal(await second.acquire('job.b', 60_000), undefined);
    });

    test('instances racing for a free lease: exactly one wins each round', async () => {
      for (let round = 0; round < 10; round += 1) {
        const name = `race.${round}`;
        const grants = await Promise.all([first.acquire(name, 60_000), second.acquire(name, 60_000), first.acquire(name, 60_000), second.acquire(name, 60_000)]);
        const holders = new Set(grants.filter((g): g is LeaseGrant => g !== undefined).map((g) => g.holder));
        assert.equal(holders.size, 1, `round ${round}: ${[...holders].join(', ')}`);
      }
    });

    test('forgetExpired deletes only the expired leases of its prefix, after the grace', async () => {
      const live = await first.acquire('forget:live', 60_000);
      const gone = await first.acquire('forget:gone', 1);
      const other = await first.acquire('keep:gone', 1);
      assert.ok(live !== undefined && gone !== undefined && other !== undefined);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const names = async (): Promise<string[]> =>
        ((await (sources[0] as DataSource).query(`SELECT "name" FROM "leases" WHERE "name" LIKE 'forget:%' OR "name" LIKE 'keep:%' ORDER BY "name"`)) as Array<{ name: string }>).map((r) => r.name);
      await first.forgetExpired('forget:', 60_000);
      assert.deepEqual(await names(), ['forget:gone', 'forget:live', 'keep:gone'], 'within the grace nothing goes');
      await first.forgetExpired('forget:', 0);
      assert.deepEqual(await names(), ['forget:live', 'keep:gone']);
    });
  });
}
