import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The PostgreSQL of the test environment (contracts): trust auth, user postgres. */
export const TEST_POSTGRES_ADMIN_URL = process.env['TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  /** Connection URL of the fresh database. */
  readonly url: string;
  readonly name: string;
  /** Runs one statement on its own connection (for checks and setup around the code under test); the rows. */
  sql<T>(statement: string, params?: unknown[]): Promise<T[]>;
  /** Drops the database (terminating leftover connections). */
  drop(): Promise<void>;
}

/**
 * Creates a uniquely named, empty database for one test run. Fails (never skips) when PostgreSQL
 * is unreachable.
 */
export async function createTestDatabase(label = 'gw'): Promise<TestDatabase> {
  const name = `${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(TEST_POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    sql: (statement, params = []) => withClient(url.toString(), async (client) => (await client.query(statement, params)).rows),
    drop: () => withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  return withClient(TEST_POSTGRES_ADMIN_URL, work);
}

async function withClient<T>(connectionString: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
