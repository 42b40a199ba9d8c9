import 'reflect-metadata';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource, type ObjectLiteral } from 'typeorm';
import { loadDatabaseConfig } from '../config/control-plane-config';
import { migrate } from '../migrate';
import { createDialectFixture, DIALECTS, type DialectFixture } from '../testing/database-fixtures';
import { parseRouteBody } from '../routes/route-input';
import { RouteEntity } from '../routes/route.entity';
import { toRouteRow } from '../routes/route.mapper';
import { parseUpstreamBody } from '../upstreams/upstream-input';
import { UpstreamEntity } from '../upstreams/upstream.entity';
import { toUpstreamRow } from '../upstreams/upstream.mapper';
import { dataSourceOptions } from './data-source-options';
import type { TimestampedEntity } from './timestamped-entity';

type Row = TimestampedEntity & ObjectLiteral;

/** The two entities that share TimestampedEntity: how to make a new valid row, find it again and change it. */
const KINDS = [
  {
    name: 'route',
    entity: RouteEntity,
    row: (n: number) => toRouteRow(parseRouteBody({ id: `stamped-${n}`, path: `/stamped-${n}`, upstream: 'http://127.0.0.1:9' })),
    key: (row: Row) => ({ id: row['id'] as string }),
    edit: (row: Row) => Object.assign(row, { description: 'edited' }),
  },
  {
    name: 'upstream',
    entity: UpstreamEntity,
    row: (n: number) => toUpstreamRow(parseUpstreamBody({ targets: [{ url: 'http://127.0.0.1:9' }] }, `stamped-${n}`)),
    key: (row: Row) => ({ name: row['name'] as string }),
    edit: (row: Row) => Object.assign(row, toUpstreamRow(parseUpstreamBody({ targets: [{ url: 'http://127.0.0.1:8' }] }, row['name'] as string))),
  },
];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A moment that is not a whole second, so a column that kept only seconds would read back earlier. */
async function offTheSecond(): Promise<number> {
  while (Date.now() % 1000 < 2 || Date.now() % 1000 > 990) await pause(5);
  return Date.now();
}

for (const dialect of DIALECTS) {
  describe(`timestamped entities (${dialect})`, () => {
    let fixture: DialectFixture;
    let dataSource: DataSource;
    let sequence = 0;

    before(async () => {
      fixture = await createDialectFixture(dialect);
      await migrate({ dataDir: fixture.dataDir, env: fixture.env });
      dataSource = new DataSource(dataSourceOptions(loadDatabaseConfig(fixture.env, fixture.dataDir)));
      await dataSource.initialize();
    });
    after(async () => {
      await dataSource?.destroy();
      await fixture?.dispose();
    });

    for (const kind of KINDS) {
      const repository = () => dataSource.getRepository<Row>(kind.entity);
      const insert = async (preset?: Date): Promise<Row> => {
        const row = Object.assign(repository().create(), kind.row((sequence += 1)), preset === undefined ? {} : { createdAt: preset });
        return repository().save(row);
      };
      const reread = async (row: Row): Promise<Row> => repository().findOneByOrFail(kind.key(row));

      test(`${kind.name}: an insert stamps created and updated at the same millisecond, stored as stamped`, async () => {
        const earliest = await offTheSecond();
        const saved = await insert();
        const latest = Date.now();
        assert.ok(saved.createdAt.getTime() >= earliest && saved.createdAt.getTime() <= latest, `${saved.createdAt.toISOString()} within the save`);
        assert.equal(saved.updatedAt.getTime(), saved.createdAt.getTime());
        const stored = await reread(saved);
        assert.equal(stored.createdAt.toISOString(), saved.createdAt.toISOString(), 'the milliseconds survive the column');
      });

      test(`${kind.name}: rows made within one second keep their creation order`, async () => {
        await offTheSecond();
        const first = await insert();
        await pause(2);
        const second = await insert();
        const [a, b] = [await reread(first), await reread(second)];
        assert.ok(a.createdAt.getTime() < b.createdAt.getTime(), `${a.createdAt.toISOString()} before ${b.createdAt.toISOString()}`);
      });

      test(`${kind.name}: a creation time already set is kept`, async () => {
        const preset = new Date('2026-01-02T03:04:05.678Z');
        const stored = await reread(await insert(preset));
        assert.equal(stored.createdAt.toISOString(), preset.toISOString());
      });

      test(`${kind.name}: an update moves updatedAt on and leaves createdAt`, async () => {
        const saved = await insert();
        const created = saved.createdAt.toISOString();
        await pause(5);
        await repository().save(kind.edit(await reread(saved)));
        const stored = await reread(saved);
        assert.equal(stored.createdAt.toISOString(), created);
        assert.ok(stored.updatedAt.getTime() > saved.updatedAt.getTime(), `${stored.updatedAt.toISOString()} after ${saved.updatedAt.toISOString()}`);
      });
    }
  });
}
