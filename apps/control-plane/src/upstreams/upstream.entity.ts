import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { UpstreamDefinition } from '@gateway/route-model';
import { TimestampedEntity } from '../database/timestamped-entity';

/**
 * One upstream made through the API. `name` is what routes name in `upstream`; `definition` holds
 * the whole normalized upstream (libs/route-model `normalizeUpstream`) so no upstream rule is
 * restated here. proxy.yml upstreams are not rows: they live in proxy_file_state.
 */
@Entity({ name: 'upstreams' })
export class UpstreamEntity extends TimestampedEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name!: string;

  @Column({ type: 'simple-json' })
  definition!: UpstreamDefinition;
}
