import { Injectable } from '@nestjs/common';
import type { RouteSnapshot } from '@gateway/events';
import { TransactionRunner } from '../database/transaction-runner';
import { RouteEntity } from '../routes/route.entity';
import { toCanonicalRoute } from '../routes/route.mapper';
import { ConfigRevisionService } from './config-revision.service';
import { ProxyFileStateEntity } from './proxy-file-state.entity';

/**
 * The whole route set at one revision (contracts: RouteSnapshot): enabled, not deleted routes,
 * canonical, oldest first. Revision, routes and file state are read in one transaction
 * (REPEATABLE READ on PostgreSQL), so `version` always describes exactly these routes.
 */
@Injectable()
export class RouteSnapshotBuilder {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly revisions: ConfigRevisionService,
  ) {}

  build(): Promise<RouteSnapshot> {
    return this.transactions.run(async (tx) => {
      const version = await this.revisions.current(tx);
      const rows = await tx.getRepository(RouteEntity).find({ where: { enabled: true }, order: { createdAt: 'ASC', id: 'ASC' } });
      const state = await tx.getRepository(ProxyFileStateEntity).findOneBy({ id: 1 });
      const snapshot: RouteSnapshot = {
        version,
        createdAt: new Date().toISOString(),
        routes: rows.map(toCanonicalRoute),
        upstreams: state?.upstreams ?? [],
      };
      if (state?.authentication) snapshot.authentication = state.authentication;
      return snapshot;
    }, 'REPEATABLE READ');
  }
}
