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
export function planReconciliation(file: ProxyFileContent, stored: readonly RouteEntity[], state: ProxyFileState, apiUpstreamNames: readonly string[] = []): ReconciliationPlan {
  const current = stored.filter((row) => row.source === 'file' && row.deletedAt === null).map(toCanonicalRoute);
  const diff = diffRoutes(current, file.routes);
  const stateChanged = JSON.stringify(state) !== JSON.stringify(fileStateOf(file));
  const changed = stateChanged || diff.added.length > 0 || diff.changed.length > 0 || diff.removed.length > 0;
  return { conflicts: [...conflictsWithApiRoutes(file, stored), ...conflictsWithApiUpstreams(file, stored, apiUpstreamNames)], diff, stateChanged, changed };
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

/**
 * Upstream names are unique across proxy.yml and the API (routes name upstreams by them), and an
 * upstream API routes still name (soft-deleted ones included) cannot leave the file: both refused
 * like the route conflicts, so the file is never half applied.
 */
function conflictsWithApiUpstreams(file: ProxyFileContent, stored: readonly RouteEntity[], apiUpstreamNames: readonly string[]): LocatedError[] {
  const errors: LocatedError[] = [];
  const apiNames = new Set(apiUpstreamNames);
  file.upstreams.forEach((upstream, index) => {
    if (!apiNames.has(upstream.name)) return;
    const field = `upstreams[${index}].name`;
    errors.push({ field, code: 'VALIDATION_ERROR', message: `Upstream name '${upstream.name}' is already used by an upstream created through the API`, line: file.lineOf(field) });
  });
  const known = new Set([...apiNames, ...file.upstreams.map((u) => u.name)]);
  const orphaned = new Map<string, string[]>();
  for (const row of stored) {
    const name = row.definition.upstreamName;
    if (row.source !== 'api' || name === undefined || known.has(name)) continue;
    orphaned.set(name, [...(orphaned.get(name) ?? []), row.id]);
  }
  for (const [name, routes] of orphaned) {
    errors.push({ field: 'upstreams', code: 'VALIDATION_ERROR', message: `Upstream '${name}' is named by API route(s) ${routes.slice(0, 10).join(', ')}; it cannot be removed from proxy.yml` });
  }
  return errors;
}
