import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { UpstreamDefinition } from '@gateway/route-model';
import { ProxyFileStateStore } from '../cluster/proxy-file-state.store';
import { TransactionRunner } from '../database/transaction-runner';
import { UpstreamEntity } from './upstream.entity';
import { upstreamCatalog } from './upstream.mapper';

/**
 * Every upstream a route may name (proxy.yml's and the API's, each with its `source`). The one
 * service the upstreams feature exports: the routes API validates `upstream` names against it.
 */
@Injectable()
export class UpstreamCatalog {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly fileState: ProxyFileStateStore,
  ) {}

  /** In `tx` when given (a write that must see its own transaction), else in a read transaction of its own. */
  list(tx?: EntityManager): Promise<UpstreamDefinition[]> {
    return tx === undefined ? this.transactions.run((own) => this.read(own)) : this.read(tx);
  }

  private async read(tx: EntityManager): Promise<UpstreamDefinition[]> {
    const rows = await tx.getRepository(UpstreamEntity).find({ order: { name: 'ASC' } });
    return upstreamCatalog((await this.fileState.read(tx)).upstreams, rows);
  }
}
