import { InitialSchemaPostgres1763780000000 } from './migrations/1763780000000-initial-schema.postgres';
import { InitialSchemaSqlite1763780000000 } from './migrations/1763780000000-initial-schema.sqlite';

/**
 * Migrations per dialect, oldest first. Each schema change adds one class to BOTH lists
 * (`<timestamp>-<name>.sqlite.ts` and `.postgres.ts`); `synchronize` is never used.
 */
export const SQLITE_MIGRATIONS = [InitialSchemaSqlite1763780000000];
export const POSTGRES_MIGRATIONS = [InitialSchemaPostgres1763780000000];
