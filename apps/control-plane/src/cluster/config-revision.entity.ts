import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A single row (id 1): the configuration revision every change of the route set bumps by one. */
@Entity({ name: 'config_revision' })
export class ConfigRevisionEntity {
  @PrimaryColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'integer' })
  revision!: number;
}
