import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadDatabaseConfig } from './config/control-plane-config';
import { dataSourceOptions } from './database/data-source-options';

export interface MigrateOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
}

/** pg_advisory_lock key of schema migrations (any constant shared by every instance). */
const MIGRATION_LOCK_KEY = 7_422_001;

/**
 * `gateway migrate` (and every start): applies pending migrations to the configured database
 * (DATABASE_URL, or the SQLite file in the data directory) and returns the names of those it
 * applied, oldest first. On PostgreSQL an advisory lock makes instances that start together
 * migrate one after the other: the second finds nothing left to do instead of failing.
 */
export async function migrate(options: MigrateOptions): Promise<string[]> {
  const database = loadDatabaseConfig(options.env ?? process.env, options.dataDir);
  const dataSource = new DataSource(dataSourceOptions(database));
  await dataSource.initialize();
  try {
    if (database.kind !== 'postgres') return names(await dataSource.runMigrations({ transaction: 'each' }));
    const lock = dataSource.createQueryRunner();
    await lock.connect();
    try {
      await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      try {
        return names(await dataSource.runMigrations({ transaction: 'each' }));
      } finally {
        await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      }
    } finally {
      await lock.release();
    }
  } finally {
    await dataSource.destroy();
  }
}

function names(applied: Array<{ name: string }>): string[] {
  return applied.map((migration) => migration.name);
}
