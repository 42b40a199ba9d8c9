import { Column, DeleteDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { Route, RouteSource } from '@gateway/route-model';
import { TimestampedEntity } from '../database/timestamped-entity';

/**
 * One route. The searchable fields are columns; `definition` holds the whole canonical route
 * (libs/route-model) so no route rule is restated here. Timestamps (TimestampedEntity): `datetime`
 * on SQLite, `timestamptz` on PostgreSQL (see the migrations); soft delete sets `deletedAt`.
 */
@Entity({ name: 'routes' })
export class RouteEntity extends TimestampedEntity {
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

  @DeleteDateColumn({ name: 'deleted_at', nullable: true })
  deletedAt!: Date | null;
}
