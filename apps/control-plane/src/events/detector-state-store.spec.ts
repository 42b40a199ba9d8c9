import 'reflect-metadata';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { DETECTORS, DetectorEngine, defaultEventSettings, type TrafficTick } from '@gateway/events';
import { loadDatabaseConfig } from '../config/control-plane-config';
import { dataSourceOptions } from '../database/data-source-options';
import { migrate } from '../migrate';
import { createDialectFixture, DIALECTS, type DialectFixture } from '../testing/database-fixtures';
import { Lease } from '../lease/lease.service';
import { DetectorStateEntity } from './detector-state.entity';
import { DetectorStateStore } from './detector-state-store.service';
import { DETECTORS_LEASE } from './detector-runner.service';

const spike = (index: number): TrafficTick => ({
  start: index * 10_000,
  durationMs: 10_000,
  routes: [{ routeId: 'orders', requests: 100, errors: 50, p95: 20, p99: 30, bytes: 0, clients: [] }],
  upstreams: [],
  processes: [],
});

for (const dialect of DIALECTS) {
  // Two instances, each with its own connections, as two control planes (or one before and after a restart).
  describe(`detector state across a restart and a lease handover (${dialect})`, () => {
    let fixture: DialectFixture;
    const sources: DataSource[] = [];
    const stores: DetectorStateStore[] = [];
    const leases: Lease[] = [];

    before(async () => {
      fixture = await createDialectFixture(dialect);
      await migrate({ dataDir: fixture.dataDir, env: fixture.env });
      for (let i = 0; i < 2; i += 1) {
        const source = new DataSource(dataSourceOptions(loadDatabaseConfig(fixture.env, fixture.dataDir)));
        await source.initialize();
        sources.push(source);
        stores.push(new DetectorStateStore(source.getRepository(DetectorStateEntity), source));
        leases.push(new Lease(source));
      }
    });
    after(async () => {
      for (const source of sources) await source.destroy();
      await fixture?.dispose();
    });

    test('the holder\'s state is read back by the next holder: the open incident raises nothing new', async () => {
      const [firstStore, secondStore] = stores as [DetectorStateStore, DetectorStateStore];
      const [firstLease, secondLease] = leases as [Lease, Lease];
      const grant = await firstLease.acquire(DETECTORS_LEASE, 60_000);
      assert.ok(grant);
      const engine = new DetectorEngine(DETECTORS, defaultEventSettings());
      assert.equal(engine.evaluate(spike(0), { hostMemoryLimitBytes: 1 }).events.length, 1);
      assert.equal(await firstStore.save(grant, engine.snapshot(), 10_000), true);

      await firstLease.release(grant);
      const next = await secondLease.acquire(DETECTORS_LEASE, 60_000);
      assert.ok(next && next.token > grant.token);
      const stored = await secondStore.load();
      assert.equal(stored?.evaluatedUntilMs, 10_000);
      const restarted = new DetectorEngine(DETECTORS, defaultEventSettings());
      assert.deepEqual(restarted.restore(stored?.state).reset, []);
      assert.deepEqual(restarted.evaluate(spike(1), { hostMemoryLimitBytes: 1 }).events, []);
      assert.equal(restarted.openIncidents().length, 1);

      // The old holder woke up with its old grant: its write is refused, the new state stays.
      assert.equal(await firstStore.save(grant, new DetectorEngine(DETECTORS, defaultEventSettings()).snapshot(), 99_000), false);
      assert.equal((await secondStore.load())?.evaluatedUntilMs, 10_000);
      assert.equal(await secondStore.save(next, restarted.snapshot(), 20_000), true);
      assert.equal((await firstStore.load())?.evaluatedUntilMs, 20_000);
    });
  });
}
