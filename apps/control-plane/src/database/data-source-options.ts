import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/control-plane-config';
import { ENTITIES } from './entities';
import { POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS } from './migrations';

/** How long a SQLite writer waits for another connection's lock before failing. */
const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * TypeORM options for the configured database. `synchronize` stays off so the schema only ever
 * changes through migrations, and those run only through `migrate()` (start() calls it first; on
 * PostgreSQL it holds an advisory lock), never implicitly when a DataSource opens.
 */
export function dataSourceOptions(database: DatabaseConfig): DataSourceOptions {
  const common = {
    entities: ENTITIES,
    synchronize: false,
    migrationsRun: false,
    migrationsTransactionMode: 'each' as const,
    migrationsTableName: 'migrations',
    logging: false,
  };
  if (database.kind === 'postgres') {
    return { ...common, type: 'postgres', url: database.url, migrations: POSTGRES_MIGRATIONS, connectTimeoutMS: 5000, extra: { max: 10 } };
  }
  mkdirSync(path.dirname(database.file), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database: database.file,
    migrations: SQLITE_MIGRATIONS,
    prepareDatabase: (db: { pragma(source: string): unknown }) => {
      // WAL lets readers run while a writer commits; busy_timeout makes a second writer wait.
      db.pragma('journal_mode = WAL');
      db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    },
  };
}
