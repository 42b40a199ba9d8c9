import path from 'node:path';
import Database from 'better-sqlite3';
import { createTestDatabase, makeTempDir } from '@gateway/testing';

/** One database of each dialect the control plane supports, for tests that must pass on both. */
export interface DialectFixture {
  readonly dialect: 'sqlite' | 'postgres';
  readonly dataDir: string;
  /** The env that selects this database (DATABASE_URL for PostgreSQL). */
  readonly env: NodeJS.ProcessEnv;
  /** A SQL statement on a connection of its own (sees only committed data). */
  sql<T = Record<string, unknown>>(statement: string, params?: unknown[]): Promise<T[]>;
  dispose(): Promise<void>;
}

export const DIALECTS = ['sqlite', 'postgres'] as const;

export async function createDialectFixture(dialect: DialectFixture['dialect']): Promise<DialectFixture> {
  const dir = makeTempDir(`cp-${dialect}-`);
  const dataDir = path.join(dir.path, 'data');
  if (dialect === 'sqlite') {
    return {
      dialect,
      dataDir,
      env: {},
      sql: async <T>(statement: string, params: unknown[] = []) => {
        const db = new Database(path.join(dataDir, 'gateway.sqlite'));
        try {
          db.pragma('busy_timeout = 5000');
          const prepared = db.prepare(statement.replace(/\$\d+/g, '?'));
          return (prepared.reader ? prepared.all(...params) : (prepared.run(...params), [])) as T[];
        } finally {
          db.close();
        }
      },
      dispose: async () => dir.remove(),
    };
  }
  const database = await createTestDatabase('cp');
  return {
    dialect,
    dataDir,
    env: { DATABASE_URL: database.url },
    sql: <T>(statement: string, params: unknown[] = []) => database.sql<T>(statement, params),
    dispose: async () => {
      await database.drop();
      dir.remove();
    },
  };
}
