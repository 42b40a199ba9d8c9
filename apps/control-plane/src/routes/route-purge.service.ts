import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { LessThan } from 'typeorm';
import { AuditLogService } from '../audit/audit-log.service';
import { RouteChanges } from '../cluster/route-changes.service';
import { RouteEntity } from './route.entity';

/** Decision 11 / spec 3.2: hidden routes are removed for good after 30 days. */
export const SOFT_DELETE_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const PURGE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Purges routes hidden for longer than the retention, once at start and then hourly (an unref'd
 * timer: it never keeps the process alive). Hidden routes are not served, so a purge changes what
 * data planes serve not at all; it still bumps the revision once (a `reloaded` message) because
 * the stored route set changed.
 */
@Injectable()
export class RoutePurge implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('RoutePurge');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly changes: RouteChanges,
    private readonly audit: AuditLogService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
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
    if (this.running !== undefined) return;
    this.running = this.purgeExpired()
      .then((ids) => {
        if (ids.length > 0) this.logger.log(`purged ${ids.length} route(s) deleted more than 30 days ago`);
      })
      .catch((error: unknown) => this.logger.warn(`purging deleted routes failed: ${(error as Error).message}`))
      .finally(() => (this.running = undefined));
    await this.running;
  }
}
