import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { databaseNowMs, queryRows } from './lease-sql';

/** A held lease. `token` grows each time the lease changes hands: the fencing token. */
export interface LeaseGrant {
  readonly name: string;
  readonly holder: string;
  readonly token: number;
}

/**
 * Run-once work across control-plane instances (webhook delivery, later runbooks and Kubernetes
 * jobs): a row per lease name in the `leases` table with a holder, an expiry and a fencing token.
 * It works the same on SQLite (one process) and PostgreSQL (many instances), needs no Redis, and
 * survives a holder that dies: its lease expires and the next `acquire` takes it with a higher
 * token. A holder must renew (acquire again) well before `ttlMs` passes and should check
 * `isCurrent` (or put the token in its writes) before acting on work it started earlier, because a
 * paused process can wake up after its lease went to another instance (Kleppmann's fencing).
 */
@Injectable()
export class Lease {
  /** This process: one holder id for every lease it takes. */
  readonly holder = randomUUID();
  private readonly now: string;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.now = databaseNowMs(dataSource);
  }

  /** Takes or renews the lease; undefined while another live holder has it. */
  async acquire(name: string, ttlMs: number): Promise<LeaseGrant | undefined> {
    await queryRows(
      this.dataSource,
      `INSERT INTO "leases" ("name", "holder", "token", "expires_at_ms") VALUES ($1, $2, 0, 0) ON CONFLICT ("name") DO NOTHING`,
      [name, ''],
    );
    // One statement, so two instances racing for an expired lease cannot both win: the row lock
    // (PostgreSQL) or the write lock (SQLite) orders them, and the second sees the new expiry.
    const rows = await queryRows<{ token: number | string }>(
      this.dataSource,
      `UPDATE "leases" SET
         "token" = CASE WHEN "holder" = $1 AND "expires_at_ms" > ${this.now} THEN "token" ELSE "token" + 1 END,
         "holder" = $2,
         "expires_at_ms" = ${this.now} + $3
       WHERE "name" = $4 AND ("holder" = $5 OR "expires_at_ms" <= ${this.now})
       RETURNING "token"`,
      [this.holder, this.holder, Math.max(1, Math.round(ttlMs)), name, this.holder],
    );
    const row = rows[0];
    return row === undefined ? undefined : { name, holder: this.holder, token: Number(row.token) };
  }

  /** Whether `grant` is still the live lease (same holder and token, not expired). */
  async isCurrent(grant: LeaseGrant): Promise<boolean> {
    const rows = await queryRows<{ name: string }>(
      this.dataSource,
      `SELECT "name" FROM "leases" WHERE "name" = $1 AND "holder" = $2 AND "token" = $3 AND "expires_at_ms" > ${this.now}`,
      [grant.name, grant.holder, grant.token],
    );
    return rows.length > 0;
  }

  /**
   * Deletes the leases named `${prefix}...` that expired over `graceMs` ago: one-shot leases (one
   * per event) would otherwise pile up. A name that is taken again later simply starts afresh.
   */
  async forgetExpired(prefix: string, graceMs: number): Promise<void> {
    await queryRows(this.dataSource, `DELETE FROM "leases" WHERE "name" LIKE $1 AND "expires_at_ms" < ${this.now} - $2`, [`${prefix.replace(/[%_\\]/g, '')}%`, Math.max(0, Math.round(graceMs))]);
  }

  /** Gives the lease up so another instance can take it at once; a no-op when it moved on already. */
  async release(grant: LeaseGrant): Promise<void> {
    await queryRows(this.dataSource, `UPDATE "leases" SET "expires_at_ms" = 0 WHERE "name" = $1 AND "holder" = $2 AND "token" = $3`, [
      grant.name,
      grant.holder,
      grant.token,
    ]);
  }
}
