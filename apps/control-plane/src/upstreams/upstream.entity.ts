import { BeforeInsert, BeforeUpdate, Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { UpstreamDefinition } from '@gateway/route-model';

/**
 * One upstream made through the API. `name` is what routes name in `upstream`; `definition` holds
 * the whole normalized upstream (libs/route-model `normalizeUpstream`) so no upstream rule is
 * restated here. proxy.yml upstreams are not rows: they live in proxy_file_state.
 */
@Entity({ name: 'upstreams' })
export class UpstreamEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name!: string;

  @Column({ type: 'simple-json' })
  definition!: UpstreamDefinition;

  @CreateDateColumn({ name: 'created_at' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at' })
  updatedAt!: Date;

  // Millisecond timestamps on SQLite too (its column default has second precision).
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
