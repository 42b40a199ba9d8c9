import type { FieldError, Route, RouteSource, ValidationResult } from './route.types';
import type { UpstreamDefinition } from './proxy-config.types';
import { crossFieldErrors, ROUTE_RULES } from './cross-field-rules';
import { ROUTE_MODEL_ERROR_CODES } from './error-codes';
import { joinFieldPath } from './field-path';
import { generateRouteId } from './route-id';
import { ROUTE_SCHEMA } from './route.schema';
import { isPlainObject, walkObjectFields, type WalkContext } from './schema-walker';
import { upstreamTargets } from './normalize-upstream';
import { resolveUpstreamName } from './upstream-reference';
import { applyVariantB } from './variant-b';

export interface NormalizeOptions {
  /** proxy.yml form: `route.upstream` may name one of these instead of being a URL. */
  upstreams?: readonly UpstreamDefinition[];
  /** Prepended to every error field, e.g. 'routes[3]' so errors read 'routes[3].timeout.request'. */
  fieldPrefix?: string;
  /** Overrides any `source` in the input (a client cannot claim to be a file route). */
  source?: RouteSource;
  /** Used when the input has no id; default generateRouteId. */
  generateId?: () => string;
}

/**
 * Any accepted route shape -> the canonical route (variant A, defaults filled), or every problem
 * found, all at once. Accepts variant A (spec 2.1), variant B (spec 2.2, decision 6), the
 * proxy.yml form (spec 2.6) and the short forms listed in route.schema.ts.
 */
export function normalizeRoute(input: unknown, options: NormalizeOptions = {}): ValidationResult<Route> {
  const prefix = options.fieldPrefix ?? '';
  if (!isPlainObject(input)) {
    return { ok: false, errors: [{ field: joinFieldPath(prefix, ''), message: 'route must be an object', code: ROUTE_MODEL_ERROR_CODES.VALIDATION_ERROR }] };
  }
  const errors: FieldError[] = [];
  const rename = new Map<string, string>();
  const skip = new Set<string>();
  const ctx: WalkContext = { mode: 'normalize', prefix, rootLabel: 'route', errors, rename, skip };

  const working: Record<string, unknown> = { ...input };
  applyVariantB(working, ctx, rename);
  const named = resolveUpstreamName(working, options.upstreams, ctx, rename.get('upstream') ?? 'upstream', skip);
  if (named !== undefined) working.upstreamName = named.name;
  if (working.id === undefined || working.id === null) working.id = (options.generateId ?? generateRouteId)();
  if (options.source !== undefined) working.source = options.source;

  const route = walkObjectFields(ROUTE_SCHEMA, working, '', '', ctx);
  // The named upstream's URL is checked where it is declared (upstreams[i].url), not again here.
  // With several targets the route shows the first; the data plane balances over all of them.
  if (named !== undefined) route.upstream = upstreamTargets(named)[0]?.url ?? '';
  errors.push(...crossFieldErrors(ROUTE_RULES, route, prefix, errors));
  if (errors.length > 0) return { ok: false, errors };
  // The walk builds keys in table order; only a named upstream's URL was set after it.
  return { ok: true, value: (named === undefined ? route : orderLikeSchema(route)) as unknown as Route };
}

/** Keys in table order (upstream was set after the walk), so equal routes serialize equally. */
function orderLikeSchema(route: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(ROUTE_SCHEMA.fields)) if (route[key] !== undefined) out[key] = route[key];
  return out;
}
