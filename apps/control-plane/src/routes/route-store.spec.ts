import 'reflect-metadata';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { InProcessBus } from '@gateway/events';
import { AuditLogEntity } from '../audit/audit-log.entity';
import { AuditLogService } from '../audit/audit-log.service';
import { ConfigRevisionEntity } from '../cluster/config-revision.entity';
import { ConfigRevisionService } from '../cluster/config-revision.service';
import { ProxyFileStateStore } from '../cluster/proxy-file-state.store';
import { RouteChangePublisher } from '../cluster/route-change-publisher.service';
import { RouteChanges } from '../cluster/route-changes.service';
import { DomainError } from '../common/domain-error';
import { loadDatabaseConfig } from '../config/control-plane-config';
import { dataSourceOptions } from '../database/data-source-options';
import { parseLeasesConfig } from '../config/leases-config';
import { Lease } from '../lease/lease.service';
import { migrate } from '../migrate';
import { TransactionRunner } from '../database/transaction-runner';
import { createDialectFixture, DIALECTS, type DialectFixture } from '../testing/database-fixtures';
import { parseRouteBody } from './route-input';
import { RouteLifecycle } from './route-lifecycle.service';
import { RoutePurge, SOFT_DELETE_RETENTION_MS } from './route-purge.service';
import { RouteStore } from './route-store';
import { RouteWrites } from './route-writes.service';
import { GENERAL_SETTINGS_SECTION } from '../settings/general-settings.section';
import { UpstreamCatalog } from '../upstreams/upstream-catalog.service';

/** Settings as they are before any change (version 0). */
const DEFAULT_SETTINGS = { general: GENERAL_SETTINGS_SECTION.defaults };

const actor = { id: 'admin-id', email: 'admin@example.com', ip: '127.0.0.1' };

for (const dialect of DIALECTS) {
  describe(`route store (${dialect})`, () => {
    let fixture: DialectFixture;
    let dataSource: DataSource;
    let bus: InProcessBus;
    let revisions: ConfigRevisionService;
    let store: RouteStore;
    let purge: RoutePurge;
    let routeWrites: () => RouteWrites;

    before(async () => {
      fixture = await createDialectFixture(dialect);
      // Schema changes run only through migrate(), as start() does.
      await migrate({ dataDir: fixture.dataDir, env: fixture.env });
      dataSource = new DataSource(dataSourceOptions(loadDatabaseConfig(fixture.env, fixture.dataDir)));
      await dataSource.initialize();
      revisions = new ConfigRevisionService(dataSource.getRepository(ConfigRevisionEntity));
      bus = new InProcessBus();
      // One runner, as the app has: SQLite transactions must queue on the one connection.
      const transactions = new TransactionRunner(dataSource);
      const changes = new RouteChanges(transactions, revisions, new RouteChangePublisher(bus, revisions));
      const audit = new AuditLogService(dataSource.getRepository(AuditLogEntity));
      store = new RouteStore(changes, audit);
      const catalog = new UpstreamCatalog(transactions, new ProxyFileStateStore());
      routeWrites = () => new RouteWrites(store, { reservedPathPrefixes: [] }, DEFAULT_SETTINGS, catalog, revisions);
      purge = new RoutePurge({ leases: parseLeasesConfig({}, []) }, new Lease(dataSource), changes, audit);
    });
    after(async () => {
      await bus?.close();
      await dataSource?.destroy();
      await fixture?.dispose();
    });

    test('a write that skipped the path check is refused by the unique index as PATH_EXISTS; nothing commits', async () => {
      await routeWrites().create({ id: 'holder', path: '/taken', upstream: 'http://127.0.0.1:9' }, actor);
      const before = await revisions.current();
      const intruder = parseRouteBody({ id: 'intruder', path: '/taken', upstream: 'http://127.0.0.1:9' });
      await assert.rejects(
        store.commit(actor, async (tx) => {
          await store.save(tx, intruder);
          return { response: undefined, action: 'route.create', routeId: intruder.id, change: { kind: 'upserted', route: intruder } };
        }),
        (error: unknown) => error instanceof DomainError && error.code === 'PATH_EXISTS',
      );
      assert.equal(await revisions.current(), before);
      assert.deepEqual(await fixture.sql(`SELECT id FROM routes WHERE id = 'intruder'`), []);
    });

    test('two creates that both pass the check at once: one wins, the other gets PATH_EXISTS', async () => {
      const writes = routeWrites();
      const results = await Promise.allSettled([0, 1, 2, 3].map((i) => writes.create({ id: `racer-${i}`, path: '/race', upstream: 'http://127.0.0.1:9' }, actor)));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as DomainError).code, 'PATH_EXISTS');
      const live = await fixture.sql<{ id: string }>(`SELECT id FROM routes WHERE path = '/race'`);
      assert.equal(live.length, 1);
    });

    test('the purge removes routes hidden for more than 30 days only, in one audited revision', async () => {
      const writes = routeWrites();
      const lifecycle = new RouteLifecycle(store);
      await writes.create({ id: 'hidden', path: '/hidden', upstream: 'http://127.0.0.1:9' }, actor);
      await lifecycle.remove('hidden', false, actor);
      const now = Date.now();
      assert.deepEqual(await purge.purgeExpired(new Date(now + SOFT_DELETE_RETENTION_MS - 60_000)), []);
      const before = await revisions.current();
      assert.deepEqual(await purge.purgeExpired(new Date(now + SOFT_DELETE_RETENTION_MS + 60_000)), ['hidden']);
      assert.equal(await revisions.current(), before + 1);
      assert.deepEqual(await fixture.sql(`SELECT id FROM routes WHERE id = 'hidden'`), []);
      const audit = await fixture.sql<{ actor: string }>(`SELECT actor FROM audit_log WHERE action = 'route.purge.expired'`);
      assert.deepEqual(audit.map((a) => a.actor), ['system']);
    });
  });
}
