import { Inject, Injectable } from '@nestjs/common';
import { MoreThan } from 'typeorm';
import { apiKeySecretFingerprint, type RouteSnapshot } from '@gateway/events';
import { ApiKeyEntity } from '../api-keys/api-key.entity';
import { whereStatus } from '../api-keys/api-key-status';
import { toApiKeyDigest } from '../api-keys/api-key.mapper';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { TransactionRunner } from '../database/transaction-runner';
import { RouteEntity } from '../routes/route.entity';
import { toCanonicalRoute } from '../routes/route.mapper';
import { ConfigRevisionService } from './config-revision.service';
import { ProxyFileStateEntity } from './proxy-file-state.entity';
import { BreakerHoldEntity } from '../route-operations/breaker-hold.entity';
import { UpstreamEntity } from '../upstreams/upstream.entity';
import { upstreamCatalog } from '../upstreams/upstream.mapper';

/**
 * The whole route set at one revision (contracts: RouteSnapshot): enabled, not deleted routes,
 * canonical, oldest first, every upstream (proxy.yml's and the API's), and the active API keys as
 * digests. Revision, routes, upstreams, file state and keys are read in one transaction
 * (REPEATABLE READ on PostgreSQL), so `version` always describes exactly these.
 */
@Injectable()
export class RouteSnapshotBuilder {
  private readonly fingerprint: string | undefined;

  constructor(
    private readonly transactions: TransactionRunner,
    private readonly revisions: ConfigRevisionService,
    @Inject(CONTROL_PLANE_CONFIG) config: ControlPlaneConfig,
  ) {
    this.fingerprint = config.apiKeys.secret === undefined ? undefined : apiKeySecretFingerprint(config.apiKeys.secret);
  }

  build(): Promise<RouteSnapshot> {
    return this.transactions.run(async (tx) => {
      const version = await this.revisions.current(tx);
      const rows = await tx.getRepository(RouteEntity).find({ where: { enabled: true }, order: { createdAt: 'ASC', id: 'ASC' } });
      const state = await tx.getRepository(ProxyFileStateEntity).findOneBy({ id: 1 });
      const apiUpstreams = await tx.getRepository(UpstreamEntity).find({ order: { name: 'ASC' } });
      const now = new Date();
      // An expired key leaves the set without a revision bump; data planes refuse it at expiresAt anyway.
      const keys = await tx.getRepository(ApiKeyEntity).find({ where: whereStatus('active', now), order: { createdAt: 'ASC', id: 'ASC' } });
      const snapshot: RouteSnapshot = {
        version,
        createdAt: now.toISOString(),
        routes: rows.map(toCanonicalRoute),
        // proxy.yml's and the API's upstreams merged, each with its source: data planes serve both alike.
        upstreams: upstreamCatalog(state?.upstreams ?? [], apiUpstreams),
      };
      if (state?.authentication) snapshot.authentication = state.authentication;
      snapshot.apiKeys = keys.map(toApiKeyDigest);
      const holds = await tx.getRepository(BreakerHoldEntity).find({ where: { until: MoreThan(now) }, order: { routeId: 'ASC' } });
      if (holds.length > 0) snapshot.breakerHolds = holds.map((h) => ({ routeId: h.routeId, until: h.until.toISOString() }));
      if (this.fingerprint !== undefined) snapshot.apiKeySecretFingerprint = this.fingerprint;
      return snapshot;
    }, 'REPEATABLE READ');
  }

  /** The snapshot's revision and route count without building it (metrics, `gateway status`). */
  counts(): Promise<{ revision: number; routes: number }> {
    return this.transactions.run(
      async (tx) => ({ revision: await this.revisions.current(tx), routes: await tx.getRepository(RouteEntity).countBy({ enabled: true }) }),
      'REPEATABLE READ',
    );
  }
}
