import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { LessThan } from 'typeorm';
import { AuditLogService } from '../audit/audit-log.service';
import { RouteChanges } from '../cluster/route-changes.service';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { LeasedInterval } from '../lease/leased-interval';
import { Lease } from '../lease/lease.service';
import { RouteEntity } from './route.entity';

/** Decision 11 / spec 3.2: hidden routes are removed for good after 30 days. */
export const SOFT_DELETE_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** The lease that makes one control-plane instance the purger. */
export const ROUTE_PURGE_LEASE = 'routes.purge';

/**
 * Purges routes hidden for longer than the retention on the one instance holding the purge lease:
 * at once when it takes the lease, then every ROUTE_PURGE_INTERVAL (default hourly). Hidden routes are not served, so a purge changes what
 * data planes serve not at all; it still bumps the revision once (a `reloaded` message) because
 * the stored route set changed.
 */
@Injectable()
export class RoutePurge implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('RoutePurge');
  private readonly schedule: LeasedInterval;

  constructor(
    @Inject(CONTROL_PLANE_CONFIG) config: Pick<ControlPlaneConfig, 'leases'>,
    lease: Lease,
    private readonly changes: RouteChanges,
    private readonly audit: AuditLogService,
  ) {
    const { ttlMs, routePurgeIntervalMs } = config.leases;
    this.schedule = new LeasedInterval(
      lease,
      { name: ROUTE_PURGE_LEASE, ttlMs, intervalMs: routePurgeIntervalMs, job: () => this.runOnce() },
      this.logger,
    );
  }

  /** Purges once before the API serves when this instance takes the lease (spec 3.2: "purged on start"). */
  async onApplicationBootstrap(): Promise<void> {
    await this.schedule.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.schedule.stop();
  }

  /** Removes every route hidden before `now - 30 days`; returns their ids. */
  async purgeExpired(now = new Date()): Promise<string[]> {
    const cutoff = new Date(now.getTime() - SOFT_DELETE_RETENTION_MS);
    const { result } = await this.changes.commit(async (tx) => {
      const repository = tx.getRepository(RouteEntity);
      const expired = await repository.find({ where: { deletedAt: LessThan(cutoff) }, withDeleted: true, select: { id: true } });
      if (expired.length === 0) return { result: [] as string[] };
      const ids = expired.map((row) => row.id);
      await repository.delete(ids);
      await this.audit.record({ actor: 'system', action: 'route.purge.expired', details: { ids } }, tx);
      return { result: ids, change: { kind: 'reloaded' } };
    });
    return result;
  }

  private async runOnce(): Promise<void> {
    try {
      const ids = await this.purgeExpired();
      if (ids.length > 0) this.logger.log(`purged ${ids.length} route(s) deleted more than 30 days ago`);
    } catch (error) {
      this.logger.warn(`purging deleted routes failed: ${(error as Error).message}`);
    }
  }
}
