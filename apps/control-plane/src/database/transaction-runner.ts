import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel';

/**
 * Runs work in a database transaction. Use it instead of `dataSource.transaction()`:
 * TypeORM's better-sqlite3 driver has ONE connection, so two concurrent `transaction()` calls
 * would nest as savepoints of each other (one's COMMIT committing the other's half-done work).
 * On SQLite transactions are therefore queued one at a time; on PostgreSQL each gets its own
 * pooled connection and runs concurrently.
 */
@Injectable()
export class TransactionRunner {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly serialized: boolean;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.serialized = dataSource.options.type !== 'postgres';
  }

  /** `isolation` applies on PostgreSQL (SQLite transactions are serializable anyway). */
  run<T>(work: (tx: EntityManager) => Promise<T>, isolation?: IsolationLevel): Promise<T> {
    if (!this.serialized) {
      return isolation === undefined ? this.dataSource.transaction(work) : this.dataSource.transaction(isolation, work);
    }
    const next = this.queue.then(() => this.dataSource.transaction(work));
    this.queue = next.catch(() => undefined);
    return next;
  }
}
