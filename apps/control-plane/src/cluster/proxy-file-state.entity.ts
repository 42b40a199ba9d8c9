import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { SessionAuthenticationConfig, UpstreamDefinition } from '@gateway/route-model';

/**
 * A single row (id 1): what proxy.yml declares besides routes and data planes need in snapshots
 * (upstreams, the session authentication block), as of the last reconciliation.
 */
@Entity({ name: 'proxy_file_state' })
export class ProxyFileStateEntity {
  @PrimaryColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'simple-json' })
  upstreams!: UpstreamDefinition[];

  @Column({ type: 'simple-json', nullable: true })
  authentication!: SessionAuthenticationConfig | null;
}
