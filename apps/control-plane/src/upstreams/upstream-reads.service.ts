import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '../database/transaction-runner';
import { DomainError } from '../common/domain-error';
import { ProxyFileStateStore } from '../cluster/proxy-file-state.store';
import { UpstreamEntity } from './upstream.entity';
import { fileUpstreamResponse, toUpstreamResponse, type UpstreamResponse } from './upstream.mapper';

/**
 * The list and one upstream, proxy.yml's and the API's together, ordered by name. Upstreams are
 * few (tens, not thousands), so the page is cut from the merged list in memory.
 */
@Injectable()
export class UpstreamReads {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly fileState: ProxyFileStateStore,
  ) {}

  async list(page: { limit: number; offset: number }): Promise<{ items: UpstreamResponse[]; total: number }> {
    const all = await this.all();
    return { items: all.slice(page.offset, page.offset + page.limit), total: all.length };
  }

  async get(name: string): Promise<UpstreamResponse> {
    const found = (await this.all()).find((u) => u.name === name);
    if (found === undefined) throw new DomainError('UPSTREAM_NOT_FOUND', undefined, { name });
    return found;
  }

  private all(): Promise<UpstreamResponse[]> {
    return this.transactions.run(async (tx) => {
      const rows = await tx.getRepository(UpstreamEntity).find();
      const file = (await this.fileState.read(tx)).upstreams;
      return [...file.map(fileUpstreamResponse), ...rows.map(toUpstreamResponse)].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    });
  }
}
