import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { ConfigRevisionEntity } from './config-revision.entity';

/**
 * The configuration revision (contracts: `version`): an integer that grows by exactly one with
 * every change of the route set, stored durably and bumped in the same transaction as the change.
 */
@Injectable()
export class ConfigRevisionService {
  constructor(@InjectRepository(ConfigRevisionEntity) private readonly revisions: Repository<ConfigRevisionEntity>) {}

  /**
   * Increments inside the caller's transaction and returns the new revision. A single
   * `UPDATE ... RETURNING` is atomic: on PostgreSQL the row lock makes concurrent bumps wait for
   * each other's commit; on SQLite the write lock (and TransactionRunner) does the same.
   */
  async bump(tx: EntityManager): Promise<number> {
    const raw: unknown = await tx.query(`UPDATE "config_revision" SET "revision" = "revision" + 1 WHERE "id" = 1 RETURNING "revision"`);
    // PostgreSQL answers an UPDATE with [rows, rowCount]; SQLite with the rows.
    const rows = (Array.isArray(raw) && Array.isArray(raw[0]) ? raw[0] : raw) as Array<{ revision: number | string }>;
    const revision = Number(rows[0]?.revision);
    if (!Number.isSafeInteger(revision)) throw new Error('config_revision row is missing (migrations not applied?)');
    return revision;
  }

  /**
   * Serializes read-then-write changes of the route set (reconciliation) across transactions and
   * control-plane instances: on PostgreSQL the revision row is locked until `tx` ends, so a second
   * reconciliation waits and then plans against the first one's committed rows. SQLite has one
   * writer at a time already (TransactionRunner).
   */
  async lock(tx: EntityManager): Promise<void> {
    if (tx.connection.options.type === 'postgres') await tx.query(`SELECT "revision" FROM "config_revision" WHERE "id" = 1 FOR UPDATE`);
  }

  /** The committed revision (or the one visible to `tx`). */
  async current(tx?: EntityManager): Promise<number> {
    const repository = tx ? tx.getRepository(ConfigRevisionEntity) : this.revisions;
    const row = await repository.findOneBy({ id: 1 });
    return row?.revision ?? 0;
  }
}
