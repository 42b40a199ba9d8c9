import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { diffRoutes, type FieldError, type Route, type RouteDiff } from '@gateway/route-model';
import { AuditLogService } from '../audit/audit-log.service';
import { ConfigRevisionService } from '../cluster/config-revision.service';
import { ProxyFileStateStore, type ProxyFileState } from '../cluster/proxy-file-state.store';
import { RouteChanges } from '../cluster/route-changes.service';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import type { ReconcileOutcome } from '../control-plane-options';
import { RouteEntity } from '../routes/route.entity';
import { toCanonicalRoute, toRouteRow } from '../routes/route.mapper';
import { readProxyFile, type ProxyFileContent } from './proxy-file.reader';

type LocatedError = FieldError & { line?: number };

interface Plan {
  diff: RouteDiff;
  stateChanged: boolean;
}

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

    let conflicts: LocatedError[] = [];
    const { result, version } = await this.routeChanges.commit(async (tx) => {
      const stored = await tx.getRepository(RouteEntity).find({ withDeleted: true });
      conflicts = conflictsWithApiRoutes(file, stored);
      const plan = await this.plan(tx, file, stored);
      const changed = hasChanges(plan);
      if (conflicts.length > 0 || dryRun || !changed) return { result: plan };
      await this.apply(tx, file, stored, plan.diff);
      await this.audit.record({ actor, action: 'config.reconcile', target: this.config.configPath, details: summary(plan.diff) }, tx);
      return { result: plan, change: { kind: 'reloaded' } };
    });
    if (conflicts.length > 0) return this.refuse(conflicts, actor, dryRun);
    if (version !== undefined) this.logger.log(`proxy.yml reconciled at revision ${version}: ${JSON.stringify(summary(result.diff))}`);
    return { ok: true, dryRun, version: version ?? (await this.revisions.current()), diff: result.diff };
  }

  private async plan(tx: EntityManager, file: ProxyFileContent, stored: RouteEntity[]): Promise<Plan> {
    const current = stored.filter((row) => row.source === 'file' && row.deletedAt === null).map(toCanonicalRoute);
    const diff = diffRoutes(current, file.routes);
    const state = await this.fileState.read(tx);
    return { diff, stateChanged: JSON.stringify(state) !== JSON.stringify(fileStateOf(file)) };
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

function fileStateOf(file: ProxyFileContent): ProxyFileState {
  return file.authentication ? { upstreams: file.upstreams, authentication: file.authentication } : { upstreams: file.upstreams };
}

function hasChanges(plan: Plan): boolean {
  return plan.stateChanged || plan.diff.added.length > 0 || plan.diff.changed.length > 0 || plan.diff.removed.length > 0;
}

function summary(diff: RouteDiff): Record<string, string[]> {
  return { added: diff.added.map((r) => r.id), changed: diff.changed.map((c) => c.after.id), removed: diff.removed.map((r) => r.id) };
}

/**
 * File routes may not take an API route's id, nor (decision 9) the path of an enabled API route
 * while enabled themselves. Reported per file route, with its line.
 */
function conflictsWithApiRoutes(file: ProxyFileContent, stored: RouteEntity[]): LocatedError[] {
  const apiIds = new Set(stored.filter((row) => row.source === 'api').map((row) => row.id));
  const apiPaths = new Set(stored.filter((row) => row.source === 'api' && row.enabled && row.deletedAt === null).map((row) => row.path));
  const errors: LocatedError[] = [];
  file.routes.forEach((route: Route, index) => {
    if (apiIds.has(route.id)) {
      const field = `routes[${index}].id`;
      errors.push({ field, code: 'VALIDATION_ERROR', message: `Route id '${route.id}' is already used by a route created through the API`, line: file.lineOf(field) });
    }
    if (route.enabled && apiPaths.has(route.path)) {
      const field = `routes[${index}].path`;
      errors.push({ field, code: 'PATH_EXISTS', message: 'Path already exists', line: file.lineOf(field) });
    }
  });
  return errors;
}
