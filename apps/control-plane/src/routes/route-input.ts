import { canonicalRouteInput, normalizeRoute, reservedPathError, type FieldError, type Route, type UpstreamDefinition } from '@gateway/route-model';
import { DomainError } from '../common/domain-error';
import { isJsonObject as isObject, mergePatch } from '../common/merge-patch';
import { explainUnknownUpstream, resolveUpstreamReference } from './route-upstream-reference';

/**
 * Fields the server sets. A client may send them back (a GET response used as a PUT body); they
 * are dropped, never trusted: `source` is always `api` for the API, timestamps are the row's.
 */
const SERVER_SET_FIELDS = ['source', 'createdAt', 'updatedAt', 'deletedAt'] as const;

/** Spec 7.2 names a message per condition; when several fields fail, the most specific code leads. */
const CODE_RANK: Record<string, number> = { INVALID_PATH: 0, INVALID_URL: 1 };

/** Every failing field in `details.fields`; the code (and message) of the most specific one. */
export function routeValidationError(errors: readonly FieldError[]): DomainError {
  const ordered = [...errors].sort((a, b) => (CODE_RANK[a.code] ?? 9) - (CODE_RANK[b.code] ?? 9));
  return DomainError.fromFieldErrors(ordered);
}

/**
 * A create or update body (variant A or B, decision 6) -> the canonical route, through
 * libs/route-model only: every rule (unknown fields included) is the library's.
 * `id` is the route being written (PUT/PATCH): the body may repeat it, not change it.
 * `upstream` may name one of `upstreams` (proxy.yml's and the API's) instead of being a URL.
 */
export function parseRouteBody(body: unknown, id?: string, upstreams: readonly UpstreamDefinition[] = []): Route {
  if (!isObject(body)) throw routeValidationError([{ field: '(body)', message: 'body must be a JSON object', code: 'VALIDATION_ERROR' }]);
  const input: Record<string, unknown> = { ...body };
  for (const field of SERVER_SET_FIELDS) delete input[field];
  if (id !== undefined) {
    if (input['id'] !== undefined && input['id'] !== null && input['id'] !== id) {
      throw routeValidationError([{ field: 'id', message: 'id cannot be changed (it is the id in the URL)', code: 'VALIDATION_ERROR' }]);
    }
    input['id'] = id;
  }
  const named = resolveUpstreamReference(input, upstreams);
  const result = normalizeRoute(input, named === undefined ? { source: 'api' } : { source: 'api', upstreams: named });
  if (!result.ok) throw routeValidationError(explainUnknownUpstream(result.errors, input));
  return result.value;
}

/**
 * In one process `/api`, `/admin` and `/internal` reach the control plane before any route is
 * matched, so a route there could never be served: 400 RESERVED_PATH on `path`, the rule (and
 * message) proxy.yml gets at start and on reload. `reserved` is empty in the control-plane role.
 */
export function assertServablePath(route: Route, reserved: readonly string[]): Route {
  const error = reservedPathError(route.path, 'path', reserved);
  if (error !== undefined) throw routeValidationError([error]);
  return route;
}

/**
 * Variant B fields and the canonical field each one replaces (decision 6). A PATCH that sends the
 * variant B spelling replaces the stored canonical value instead of conflicting with it.
 */
const VARIANT_B_TWINS: ReadonlyArray<{ field: string; replaces: (base: Record<string, unknown>) => void }> = [
  { field: 'target', replaces: (base) => delete base['upstream'] },
  { field: 'rateLimiting', replaces: (base) => delete base['rateLimit'] },
  {
    field: 'retryAttempts',
    replaces: (base) => {
      if (isObject(base['retry'])) {
        const { attempts: _attempts, enabled: _enabled, ...rest } = base['retry'];
        base['retry'] = rest;
      }
    },
  },
];

/**
 * PATCH: a JSON merge patch (RFC 7396) of the body over the stored route; objects merge, arrays
 * and scalars replace, `null` removes a field (it goes back to its default). The result is
 * normalized and validated like a PUT body.
 */
export function mergeRoutePatch(stored: Route, patch: unknown, upstreams: readonly UpstreamDefinition[] = []): Route {
  if (!isObject(patch)) throw routeValidationError([{ field: '(body)', message: 'body must be a JSON object', code: 'VALIDATION_ERROR' }]);
  // The stored route in its input spelling, so normalizing the merge does not re-read it (decision 7).
  const base = canonicalRouteInput(stored) as unknown as Record<string, unknown>;
  for (const field of SERVER_SET_FIELDS) delete base[field];
  // A route naming an upstream keeps naming it unless the patch changes `upstream` (or `target`).
  if (stored.upstreamName !== undefined) {
    base['upstream'] = stored.upstreamName;
    delete base['upstreamName'];
  }
  for (const twin of VARIANT_B_TWINS) if (patch[twin.field] !== undefined && patch[twin.field] !== null) twin.replaces(base);
  // `timeout: 3000` (variant B) changes only the request timeout of the stored block.
  const input: Record<string, unknown> = { ...patch };
  if (typeof input['timeout'] === 'number' && isObject(base['timeout'])) input['timeout'] = { ...base['timeout'], request: input['timeout'] };
  return parseRouteBody(mergePatch(base, input), stored.id, upstreams);
}
