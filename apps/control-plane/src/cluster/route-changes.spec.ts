import 'reflect-metadata';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { InProcessBus, ROUTE_CHANGES_CHANNEL, type RouteChangeMessage } from '@gateway/events';
import { normalizeRoute, type Route } from '@gateway/route-model';
import { loadDatabaseConfig } from '../config/control-plane-config';
import { dataSourceOptions } from '../database/data-source-options';
import { POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS } from '../database/migrations';
import { migrate } from '../migrate';
import { TransactionRunner } from '../database/transaction-runner';
import { RouteEntity } from '../routes/route.entity';
import { toCanonicalRoute, toRouteRow } from '../routes/route.mapper';
import { createDialectFixture, DIALECTS, type DialectFixture } from '../testing/database-fixtures';
import { ConfigRevisionEntity } from './config-revision.entity';
import { ConfigRevisionService } from './config-revision.service';
import { RouteChangePublisher } from './route-change-publisher.service';
import { RouteChanges } from './route-changes.service';

function route(id: string, path: string): Route {
  const result = normalizeRoute({ id, path, upstream: 'http://127.0.0.1:9/' }, { source: 'api' });
  assert.ok(result.ok);
  return result.value;
}

for (const dialect of DIALECTS) {
  describe(`revision and publishing (${dialect})`, () => {
    let fixture: DialectFixture;
    let dataSource: DataSource;
    let revisions: ConfigRevisionService;
    let transactions: TransactionRunner;
    let bus: InProcessBus;
    let changes: RouteChanges;

    before(async () => {
      fixture = await createDialectFixture(dialect);
      await migrate({ dataDir: fixture.dataDir, env: fixture.env });
      dataSource = new DataSource(dataSourceOptions(loadDatabaseConfig(fixture.env, fixture.dataDir)));
      await dataSource.initialize();
      transactions = new TransactionRunner(dataSource);
      revisions = new ConfigRevisionService(dataSource.getRepository(ConfigRevisionEntity));
      bus = new InProcessBus();
      changes = new RouteChanges(transactions, revisions, new RouteChangePublisher(bus, revisions));
    });
    after(async () => {
      await bus?.close();
      await dataSource?.destroy();
      await fixture?.dispose();
    });

    test('migrations applied by migrate(); the revision starts at 0', async () => {
      const applied = await fixture.sql<{ name: string }>(`SELECT name FROM migrations ORDER BY id`);
      assert.equal(applied.length, (dialect === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS).length);
      assert.equal(await revisions.current(), 0);
    });

    test('concurrent bumps never share a number and never skip one', async () => {
      const start = await revisions.current();
      const results = await Promise.all(Array.from({ length: 25 }, () => transactions.run((tx) => revisions.bump(tx))));
      assert.deepEqual([...results].sort((a, b) => a - b), Array.from({ length: 25 }, (_, i) => start + i + 1));
      assert.equal(await revisions.current(), start + 25);
    });

    test('a rolled-back bump leaves the revision unchanged', async () => {
      const start = await revisions.current();
      await assert.rejects(
        transactions.run(async (tx) => {
          await revisions.bump(tx);
          throw new Error('abort');
        }),
        /abort/,
      );
      assert.equal(await revisions.current(), start);
    });

    test('the message is published after the commit: a separate connection already sees the change', async () => {
      const seen: Array<{ message: RouteChangeMessage; visible: number }> = [];
      const stop = await bus.subscribe<RouteChangeMessage>(ROUTE_CHANGES_CHANNEL, (message) => {
        if (message.kind === 'heartbeat') return;
        void fixture.sql<{ n: number | string }>(`SELECT COUNT(*) AS n FROM routes WHERE id = $1`, ['published']).then((rows) => seen.push({ message, visible: Number(rows[0]!.n) }));
      });
      const { result, version } = await changes.commit(async (tx) => {
        await tx.getRepository(RouteEntity).insert(toRouteRow(route('published', '/published')));
        const row = await tx.getRepository(RouteEntity).findOneByOrFail({ id: 'published' });
        const canonical = toCanonicalRoute(row);
        return { result: canonical, change: { kind: 'upserted', route: canonical } };
      });
      assert.equal(version, await revisions.current());
      const deadline = Date.now() + 5000;
      while (seen.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      stop();
      assert.equal(seen.length, 1);
      assert.equal(seen[0]!.visible, 1, 'the subscriber saw the committed row');
      assert.deepEqual(seen[0]!.message, { kind: 'upserted', version, route: result });
      assert.equal(result.source, 'api');
      assert.match(String(result.createdAt), /^\d{4}-\d{2}-\d{2}T/);
    });

    test('work that fails publishes nothing and bumps nothing; work without a change bumps nothing', async () => {
      const start = await revisions.current();
      const seen: RouteChangeMessage[] = [];
      const stop = await bus.subscribe<RouteChangeMessage>(ROUTE_CHANGES_CHANNEL, (m) => m.kind !== 'heartbeat' && seen.push(m));
      await assert.rejects(
        changes.commit(async (tx) => {
          await tx.getRepository(RouteEntity).insert(toRouteRow(route('rolled-back', '/rolled-back')));
          throw new Error('validation failed late');
        }),
      );
      const { version } = await changes.commit(async () => ({ result: 'nothing' }));
      await new Promise((resolve) => setImmediate(resolve));
      stop();
      assert.equal(version, undefined);
      assert.deepEqual(seen, []);
      assert.equal(await revisions.current(), start);
      assert.deepEqual(await fixture.sql(`SELECT id FROM routes WHERE id = $1`, ['rolled-back']), []);
    });

    test('the database refuses a second enabled route on a path (decision 9 backstop)', async () => {
      await transactions.run((tx) => tx.getRepository(RouteEntity).insert(toRouteRow(route('first', '/same'))));
      await assert.rejects(transactions.run((tx) => tx.getRepository(RouteEntity).insert(toRouteRow(route('second', '/same')))));
      const disabled = { ...route('draft', '/same'), enabled: false };
      await transactions.run((tx) => tx.getRepository(RouteEntity).insert(toRouteRow(disabled)));
    });
  });
}
