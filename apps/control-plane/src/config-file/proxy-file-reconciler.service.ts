import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { RouteDiff } from '@gateway/route-model';
import { AuditLogService } from '../audit/audit-log.service';
import { ConfigRevisionService } from '../cluster/config-revision.service';
import { ProxyFileStateStore } from '../cluster/proxy-file-state.store';
import { RouteChanges } from '../cluster/route-changes.service';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import type { ReconcileOutcome } from '../control-plane-options';
import { RouteEntity } from '../routes/route.entity';
import { UpstreamEntity } from '../upstreams/upstream.entity';
import { toRouteRow } from '../routes/route.mapper';
import { readProxyFile, type ProxyFileContent } from './proxy-file.reader';
import { diffSummary, fileStateOf, planReconciliation, reservedFileRoutes, type LocatedError, type ReconciliationPlan } from './reconciliation-plan';

/**
 * proxy.yml owns the `source: file` routes (decision 13): reconciliation makes them exactly the
 * file's routes (insert, update, delete), leaves API routes alone, and stores the file's upstreams
 * and authentication block for snapshots. A change is one transaction, one revision bump and one
 * `reloaded` message; an invalid file changes nothing and reports every error with its line.
 */
@Injectable()
export class ProxyFileReconciler {
  private readonly logger = new Logger('ProxyFile');

  constructor(
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
    private readonly routeChanges: RouteChanges,
    private readonly revisions: ConfigRevisionService,
    private readonly fileState: ProxyFileStateStore,
    private readonly audit: AuditLogService,
  ) {}

  async reconcile(options: { dryRun?: boolean; actor?: string } = {}): Promise<ReconcileOutcome> {
    const dryRun = options.dryRun ?? false;
    const actor = options.actor ?? 'system';
    const file = await readProxyFile(this.config.configPath);
    if (!file.ok) return this.refuse(file.errors, actor, dryRun);
    const reserved = reservedFileRoutes(file, this.config.reservedPathPrefixes);
    if (reserved.length > 0) return this.refuse(reserved, actor, dryRun);

    let conflicts: LocatedError[] = [];
    const { result, version } = await this.routeChanges.commit<ReconciliationPlan>(async (tx) => {
      if (!dryRun) await this.revisions.lock(tx);
      const stored = await tx.getRepository(RouteEntity).find({ withDeleted: true });
      const apiUpstreams = await tx.getRepository(UpstreamEntity).find({ select: { name: true } });
      const plan = planReconciliation(file, stored, await this.fileState.read(tx), apiUpstreams.map((u) => u.name));
      conflicts = plan.conflicts;
      if (conflicts.length > 0 || dryRun || !plan.changed) return { result: plan };
      await this.apply(tx, file, stored, plan.diff);
      await this.audit.record({ actor, action: 'config.reconcile', target: this.config.configPath, details: diffSummary(plan.diff) }, tx);
      return { result: plan, change: { kind: 'reloaded' } };
    });
    if (conflicts.length > 0) return this.refuse(conflicts, actor, dryRun);
    if (version !== undefined) this.logger.log(`proxy.yml reconciled at revision ${version}: ${JSON.stringify(diffSummary(result.diff))}`);
    return { ok: true, dryRun, version: version ?? (await this.revisions.current()), diff: result.diff };
  }

  private async apply(tx: EntityManager, file: ProxyFileContent, stored: RouteEntity[], diff: RouteDiff): Promise<void> {
    const routes = tx.getRepository(RouteEntity);
    const byId = new Map(stored.map((row) => [row.id, row]));
    // Paths may move between file routes: removed ones go first and changed ones are parked
    // disabled, so the one-enabled-route-per-path index holds after every statement.
    if (diff.removed.length > 0) await routes.delete(diff.removed.map((route) => route.id));
    if (diff.changed.length > 0) await routes.update(diff.changed.map((c) => c.after.id), { enabled: false });
    const now = Date.now();
    for (const [index, route] of diff.added.entries()) {
      if (byId.has(route.id)) {
        // A soft-deleted row of the same file route: bring it back with the file's definition.
        await routes.update({ id: route.id }, { ...toRouteRow(route), deletedAt: null, updatedAt: new Date(now) });
      } else {
        // File order is creation order (older wins matching ties); one ms apart keeps it.
        const at = new Date(now + index);
        await routes.insert({ ...toRouteRow(route), createdAt: at, updatedAt: at });
      }
    }
    for (const { after } of diff.changed) await routes.update({ id: after.id }, { ...toRouteRow(after), updatedAt: new Date(now) });
    await this.fileState.write(tx, fileStateOf(file));
  }

  private async refuse(errors: LocatedError[], actor: string, dryRun: boolean): Promise<ReconcileOutcome> {
    this.logger.warn(`proxy.yml not applied: ${errors.length} error(s): ${errors.map((e) => `${e.line ?? '?'} ${e.field}: ${e.message}`).join('; ')}`);
    if (!dryRun) {
      await this.audit.record({ actor, action: 'config.reconcile.failed', target: this.config.configPath, details: { errors: errors.map((e) => ({ field: e.field, code: e.code, line: e.line })) } });
    }
    return { ok: false, errors };
  }
}

