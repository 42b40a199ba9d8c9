import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadDatabaseConfig } from './config/control-plane-config';
import { dataSourceOptions } from './database/data-source-options';

export interface MigrateOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * `gateway migrate`: applies pending migrations to the configured database (DATABASE_URL, or the
 * SQLite file in the data directory) and returns the names of those it applied, oldest first.
 */
export async function migrate(options: MigrateOptions): Promise<string[]> {
  const database = loadDatabaseConfig(options.env ?? process.env, options.dataDir);
  const dataSource = new DataSource({ ...dataSourceOptions(database), migrationsRun: false });
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}
