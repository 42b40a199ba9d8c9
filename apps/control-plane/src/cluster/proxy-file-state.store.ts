import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { SessionAuthenticationConfig, UpstreamDefinition } from '@gateway/route-model';
import { ProxyFileStateEntity } from './proxy-file-state.entity';

export interface ProxyFileState {
  upstreams: UpstreamDefinition[];
  authentication?: SessionAuthenticationConfig;
}

/** proxy.yml's non-route declarations as stored for snapshots (written by reconciliation). */
@Injectable()
export class ProxyFileStateStore {
  async read(tx: EntityManager): Promise<ProxyFileState> {
    const row = await tx.getRepository(ProxyFileStateEntity).findOneBy({ id: 1 });
    return row?.authentication ? { upstreams: row.upstreams, authentication: row.authentication } : { upstreams: row?.upstreams ?? [] };
  }

  async write(tx: EntityManager, state: ProxyFileState): Promise<void> {
    await tx.getRepository(ProxyFileStateEntity).save({ id: 1, upstreams: state.upstreams, authentication: state.authentication ?? null });
  }
}
