import type { TestDatabase } from '@gateway/testing';

/*
 * The control plane's route purge as the observable piece of leased work (issue 17: work that must
 * run once runs on one instance at a time through the event layer's Lease, handed over when that
 * instance dies). Shared by the cluster tests that kill a lease holder.
 */

export const PURGE_LEASE = 'routes.purge';

/** What a control plane that purges often and gives up a dead holder's lease quickly needs. */
export const FAST_PURGE_ENV: Readonly<NodeJS.ProcessEnv> = { LEASE_TTL: '1s', ROUTE_PURGE_INTERVAL: '200ms' };

/** Ages a soft-deleted route past the 30-day retention, so the next purge removes it. */
export async function ageDeletedRoute(database: Pick<TestDatabase, 'sql'>, id: string): Promise<void> {
  await database.sql(`UPDATE routes SET deleted_at = now() - interval '31 days' WHERE id = $1`, [id]);
}

/** True once the route's row is gone (undefined until then, for polling helpers). */
export async function purged(database: Pick<TestDatabase, 'sql'>, id: string): Promise<true | undefined> {
  return (await database.sql(`SELECT 1 FROM routes WHERE id = $1`, [id])).length === 0 ? true : undefined;
}

/** The purge lease's fencing token and holder (undefined before any instance took it). */
export async function purgeLease(database: Pick<TestDatabase, 'sql'>): Promise<{ token: number; holder: string } | undefined> {
  const row = (await database.sql<{ token: string; holder: string }>(`SELECT token, holder FROM leases WHERE name = $1`, [PURGE_LEASE]))[0];
  return row === undefined ? undefined : { token: Number(row.token), holder: row.holder };
}
