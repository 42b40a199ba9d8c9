import { BeforeInsert, BeforeUpdate, Column, CreateDateColumn, DeleteDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { Route, RouteSource } from '@gateway/route-model';

/**
 * One route. The searchable fields are columns; `definition` holds the whole canonical route
 * (libs/route-model) so no route rule is restated here. Timestamps: `datetime` on SQLite,
 * `timestamptz` on PostgreSQL (see the migrations); soft delete sets `deletedAt`.
 */
@Entity({ name: 'routes' })
export class RouteEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ type: 'varchar', length: 2048 })
  path!: string;

  @Column({ type: 'varchar', length: 2048 })
  upstream!: string;

  @Column({ type: 'boolean' })
  enabled!: boolean;

  @Column({ type: 'varchar', length: 8 })
  source!: RouteSource;

  @Column({ type: 'integer' })
  priority!: number;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ type: 'simple-json' })
  tags!: string[];

  @Column({ type: 'simple-json' })
  definition!: Route;

  @CreateDateColumn({ name: 'created_at' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at' })
  updatedAt!: Date;

  @DeleteDateColumn({ name: 'deleted_at', nullable: true })
  deletedAt!: Date | null;

  // The database defaults have second precision on SQLite; routes made in one second must still
  // keep their creation order (snapshots and matching ties are ordered by createdAt).
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
