import { diffRoutes, reservedPathError, type FieldError, type Route, type RouteDiff } from '@gateway/route-model';
import type { ProxyFileState } from '../cluster/proxy-file-state.store';
import type { RouteEntity } from '../routes/route.entity';
import { toCanonicalRoute } from '../routes/route.mapper';
import type { ProxyFileContent } from './proxy-file.reader';

export type LocatedError = FieldError & { line?: number };

export interface ReconciliationPlan {
  /** Non-empty: the file cannot be applied (nothing is written). */
  conflicts: LocatedError[];
  diff: RouteDiff;
  /** The stored upstreams/authentication differ from the file's. */
  stateChanged: boolean;
  /** Something to write (and a revision to bump). */
  changed: boolean;
}

/**
 * What reconciling `file` into the store would do, from the stored rows (all of them, soft-deleted
 * included) and the stored file state. Pure: shared by the reconciler and the offline preview.
 */
export function planReconciliation(file: ProxyFileContent, stored: readonly RouteEntity[], state: ProxyFileState): ReconciliationPlan {
  const current = stored.filter((row) => row.source === 'file' && row.deletedAt === null).map(toCanonicalRoute);
  const diff = diffRoutes(current, file.routes);
  const stateChanged = JSON.stringify(state) !== JSON.stringify(fileStateOf(file));
  const changed = stateChanged || diff.added.length > 0 || diff.changed.length > 0 || diff.removed.length > 0;
  return { conflicts: conflictsWithApiRoutes(file, stored), diff, stateChanged, changed };
}

/**
 * File routes on a path this process serves itself (the management prefixes in one process) could
 * never be reached: refused by name, with their line, at start and on every reload alike.
 */
export function reservedFileRoutes(file: ProxyFileContent, reserved: readonly string[]): LocatedError[] {
  const errors: LocatedError[] = [];
  file.routes.forEach((route, index) => {
    const error = reservedPathError(route.path, `routes[${index}].path`, reserved);
    if (error !== undefined) errors.push({ ...error, line: file.lineOf(error.field) });
  });
  return errors;
}

export function fileStateOf(file: ProxyFileContent): ProxyFileState {
  return file.authentication ? { upstreams: file.upstreams, authentication: file.authentication } : { upstreams: file.upstreams };
}

export function diffSummary(diff: RouteDiff): Record<string, string[]> {
  return { added: diff.added.map((r) => r.id), changed: diff.changed.map((c) => c.after.id), removed: diff.removed.map((r) => r.id) };
}

/**
 * File routes may not take an API route's id, nor (decision 9) the path of an enabled API route
 * while enabled themselves. Reported per file route, with its line.
 */
function conflictsWithApiRoutes(file: ProxyFileContent, stored: readonly RouteEntity[]): LocatedError[] {
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
