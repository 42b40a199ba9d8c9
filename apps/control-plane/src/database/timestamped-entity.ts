import { BeforeInsert, BeforeUpdate, CreateDateColumn, UpdateDateColumn } from 'typeorm';

/**
 * `created_at` and `updated_at` for an entity that extends it (routes, upstreams), stamped here in
 * milliseconds: the database defaults have second precision on SQLite, and rows made in one second
 * must still keep their creation order (snapshots and matching ties are ordered by createdAt).
 * A time already set is kept on insert. Abstract: it has no table of its own, and the columns and
 * hooks become the subclass's (TypeORM reads decorators along the class chain).
 */
export abstract class TimestampedEntity {
  @CreateDateColumn({ name: 'created_at' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at' })
  updatedAt!: Date;

  @BeforeInsert()
  protected stampCreated(): void {
    const now = new Date();
    this.createdAt ??= now;
    this.updatedAt ??= now;
  }

  @BeforeUpdate()
  protected stampUpdated(): void {
    this.updatedAt = new Date();
  }
}
