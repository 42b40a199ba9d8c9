import type { DataSource } from 'typeorm';

/**
 * The database's own clock in epoch milliseconds: every instance compares expiries against one
 * clock, so a control plane whose clock is ahead cannot take a lease that has not expired yet.
 */
export function databaseNowMs(dataSource: DataSource): string {
  return dataSource.options.type === 'postgres'
    ? `(floor(extract(epoch from clock_timestamp()) * 1000))::bigint`
    : `CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER)`;
}

/**
 * One statement with positional parameters written `$1, $2...` (PostgreSQL's form, each used once
 * and in order); better-sqlite3 takes `?`. Returns the rows of a RETURNING clause on both drivers.
 */
export async function queryRows<T>(dataSource: DataSource, statement: string, params: unknown[]): Promise<T[]> {
  const text = dataSource.options.type === 'postgres' ? statement : statement.replace(/\$\d+/g, '?');
  const runner = dataSource.createQueryRunner();
  try {
    const result = await runner.query(text, params, true);
    return (result.records ?? []) as T[];
  } finally {
    await runner.release();
  }
}
