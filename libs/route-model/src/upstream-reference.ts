import type { UpstreamDefinition } from './proxy-config.types';
import { ROUTE_MODEL_ERROR_CODES } from './error-codes';
import { report, type WalkContext } from './schema-walker';

/**
 * Spec 2.6: in proxy.yml a route's `upstream` names an entry of `upstreams`. A value containing
 * `://` is always read as a URL; anything else must be a name when `upstreams` is given (the file
 * form). Returns the named upstream, or undefined when the value is left to the URL check;
 * an unknown name is reported here and `upstream` is added to `skip`.
 */
export function resolveUpstreamName(
  working: Record<string, unknown>,
  upstreams: readonly UpstreamDefinition[] | undefined,
  ctx: WalkContext,
  shown: string,
  skip: Set<string>,
): UpstreamDefinition | undefined {
  const value = working.upstream;
  if (upstreams === undefined || typeof value !== 'string' || value.includes('://')) return undefined;
  skip.add('upstream');
  const named = upstreams.find((u) => u.name === value);
  if (named === undefined) {
    report(ctx, shown, `Unknown upstream '${value}' (not a name under upstreams nor a URL)`, ROUTE_MODEL_ERROR_CODES.UNKNOWN_UPSTREAM);
  }
  return named;
}
