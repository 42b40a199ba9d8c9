import type { FieldError, Route } from './route.types';
import type { UpstreamDefinition } from './proxy-config.types';
import { ROUTE_MODEL_ERROR_CODES } from './error-codes';
import { appendIndex } from './field-path';
import { fileRouteIds } from './file-route-ids';
import { normalizeRoute } from './normalize-route';
import { generateRouteId } from './route-id';
import { isPlainObject } from './schema-walker';

/**
 * Routes through normalizeRoute (source file, stable ids, upstream names), then decision 9:
 * two enabled routes may not share a path; the later one is reported.
 */
export function readFileRoutes(raw: unknown, rawUpstreams: unknown, errors: FieldError[]): Route[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    errors.push({ field: 'routes', message: 'routes must be an array', code: ROUTE_MODEL_ERROR_CODES.VALIDATION_ERROR });
    return [];
  }
  const upstreams = upstreamReferences(rawUpstreams);
  const ids = fileRouteIds(raw);
  const routes: Route[] = [];
  const idAt = new Map<string, number>();
  const pathAt = new Map<string, number>();
  // A plain loop: start-up runs it 10,000 times, mostly before V8 optimizes it (schema-walker.ts).
  for (let i = 0; i < raw.length; i += 1) {
    const field = appendIndex('routes', i);
    const id = ids[i];
    const result = normalizeRoute(raw[i], { upstreams, fieldPrefix: field, source: 'file', generateId: id === undefined ? generateRouteId : () => id });
    if (!result.ok) {
      errors.push(...result.errors);
      continue;
    }
    const route = result.value;
    const sameId = idAt.get(route.id);
    if (sameId !== undefined) {
      errors.push({ field: `${field}.id`, message: `Duplicate route id '${route.id}' (also routes[${sameId}])`, code: ROUTE_MODEL_ERROR_CODES.VALIDATION_ERROR });
    } else idAt.set(route.id, i);
    if (route.enabled) {
      if (pathAt.has(route.path)) errors.push({ field: `${field}.path`, message: 'Path already exists', code: ROUTE_MODEL_ERROR_CODES.PATH_EXISTS });
      else pathAt.set(route.path, i);
    }
    routes.push(route);
  }
  return routes;
}

/**
 * Every declared name, even one whose entry has other errors (those are reported at the entry),
 * so a route naming it is not also called unknown.
 */
function upstreamReferences(raw: unknown): UpstreamDefinition[] {
  if (!Array.isArray(raw)) return [];
  const out: UpstreamDefinition[] = [];
  for (const upstream of raw) {
    if (isPlainObject(upstream) && typeof upstream.name === 'string') {
      out.push({ name: upstream.name, url: firstTargetUrl(upstream) });
    }
  }
  return out;
}

/** What a route naming the upstream shows in its `upstream` field: the first target's URL. */
function firstTargetUrl(upstream: Record<string, unknown>): string {
  if (typeof upstream.url === 'string') return upstream.url;
  const first: unknown = Array.isArray(upstream.targets) ? upstream.targets[0] : undefined;
  return isPlainObject(first) && typeof first.url === 'string' ? first.url : '';
}
