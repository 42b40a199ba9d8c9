import 'reflect-metadata';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { loadDatabaseConfig } from '../config/control-plane-config';
import { dataSourceOptions } from '../database/data-source-options';
import { migrate } from '../migrate';
import { createDialectFixture, DIALECTS, type DialectFixture } from '../testing/database-fixtures';
import { LeasedInterval, type LeasedIntervalOptions } from './leased-interval';
import { Lease, type LeaseGrant } from './lease.service';

interface Run {
  readonly instance: number;
  readonly grant: LeaseGrant;
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

for (const dialect of DIALECTS) {
  // Two control planes: each its own DataSource (own connections) on one database.
  describe(`LeasedInterval across two instances (${dialect})`, () => {
    let fixture: DialectFixture;
    const open: DataSource[] = [];
    const jobs: LeasedInterval[] = [];

    async function instance(): Promise<Lease> {
      const source = new DataSource(dataSourceOptions(loadDatabaseConfig(fixture.env, fixture.dataDir)));
      await source.initialize();
      open.push(source);
      return new Lease(source);
    }

    /** Two instances scheduling the same job; every run is recorded with who ran it under which grant. */
    async function twoInstances(options: Omit<LeasedIntervalOptions, 'job'>, job: (run: Run) => Promise<void> = async () => undefined) {
      const runs: Run[] = [];
      const leases = [await instance(), await instance()];
      const schedules = leases.map(
        (lease, index) =>
          new LeasedInterval(lease, { ...options, job: (grant) => (runs.push({ instance: index, grant }), job({ instance: index, grant })) }, new Logger(`job-${index}`)),
      );
      jobs.push(...schedules);
      for (const schedule of schedules) void schedule.start();
      return { runs, leases, schedules };
    }

    before(async () => {
      fixture = await createDialectFixture(dialect);
      await migrate({ dataDir: fixture.dataDir, env: fixture.env });
    });
    after(async () => {
      for (const job of jobs) await job.stop();
      for (const source of open) if (source.isInitialized) await source.destroy();
      await fixture?.dispose();
    });

    test('only the lease holder runs the job, interval after interval', async () => {
      const { runs, schedules } = await twoInstances({ name: 'job.only-one', ttlMs: 60_000, renewMs: 20, intervalMs: 50 });
      await until(() => runs.length >= 5, 'five runs');
      const runners = new Set(runs.map((run) => run.instance));
      assert.equal(runners.size, 1, `runs by instances ${[...runners].join(', ')}`);
      const holder = runs[0]?.instance as number;
      assert.equal(schedules[holder]?.holding, true);
      assert.equal(schedules[1 - holder]?.holding, false);
      // One grant throughout: the holder renewed, the lease never changed hands.
      assert.equal(new Set(runs.map((run) => run.grant.token)).size, 1);
    });

    test('a job running longer than the TTL keeps its lease by renewing', async () => {
      // A holder stalled past the TTL loses its lease, as it must (renewing then takes a new token):
      // at 400 ms a stall of a loaded machine did that. The TTL outlasts such stalls; the job, twice the TTL.
      const ttlMs = 1500;
      let stillCurrent: boolean | undefined;
      const { runs, leases } = await twoInstances({ name: 'job.long', ttlMs, renewMs: 100, intervalMs: 60_000 }, async (run) => {
        if (stillCurrent !== undefined) return;
        await new Promise((resolve) => setTimeout(resolve, 2 * ttlMs));
        stillCurrent = await (leases[run.instance] as Lease).isCurrent(run.grant);
      });
      await until(() => stillCurrent !== undefined, 'the long job to finish');
      assert.equal(stillCurrent, true);
      assert.equal(runs.length, 1, 'the other instance must not have taken the lease during the job');
    });

    test('when the holder stops renewing, the other instance takes over after the TTL with a higher token', async () => {
      const { runs, leases, schedules } = await twoInstances({ name: 'job.takeover', ttlMs: 500, renewMs: 50, intervalMs: 60_000 });
      await until(() => runs.length >= 1, 'the first run');
      const first = runs[0] as Run;
      // The holder's database connections go away (a crash or a partition): it can renew no more.
      const holderSource = open[open.length - 2 + first.instance] as DataSource;
      await holderSource.destroy();
      await until(() => runs.some((run) => run.instance !== first.instance), 'the other instance to take over');
      await (schedules[first.instance] as LeasedInterval).stop();
      const next = runs.find((run) => run.instance !== first.instance) as Run;
      assert.ok(next.grant.token > first.grant.token, `token ${next.grant.token} after ${first.grant.token}`);
      assert.equal(await (leases[1 - first.instance] as Lease).isCurrent(next.grant), true);
    });

    test('stop() releases the lease: the other instance runs the job without waiting for the TTL', async () => {
      const { runs, schedules } = await twoInstances({ name: 'job.handover', ttlMs: 3_600_000, renewMs: 20, intervalMs: 60_000 });
      await until(() => runs.length >= 1, 'the first run');
      const first = runs[0] as Run;
      await (schedules[first.instance] as LeasedInterval).stop();
      await until(() => runs.some((run) => run.instance !== first.instance), 'the other instance to take over');
      assert.equal(runs.filter((run) => run.instance === first.instance).length, 1);
    });
  });
}
