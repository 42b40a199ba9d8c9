import type { FieldError, ValidationResult } from './route.types';
import type { UpstreamDefinition, UpstreamTarget } from './proxy-config.types';
import { crossFieldErrors, healthCheckTimingRule, type CrossFieldRule } from './cross-field-rules';
import { ROUTE_MODEL_ERROR_CODES } from './error-codes';
import { appendIndex, joinFieldPath } from './field-path';
import { MAX_UPSTREAM_TARGETS, UPSTREAM_DEFAULTS } from './proxy-defaults';
import { UPSTREAM_SCHEMA } from './proxy-config.schema';
import { isPlainObject, walkObjectFields, type WalkContext } from './schema-walker';

type Walked = Partial<UpstreamDefinition>;

/**
 * One upstream as written in proxy.yml or sent to /api/upstreams -> its canonical form (the `url`
 * shorthand folded into `targets`, defaults filled), or every problem, each on its field
 * (`upstreams[2].targets[1].url`). The one validator of upstreams: proxy.yml, config:validate and
 * the API all call it.
 */
export function normalizeUpstream(input: unknown, fieldPrefix = ''): ValidationResult<UpstreamDefinition> {
  if (!isPlainObject(input)) {
    return { ok: false, errors: [{ field: joinFieldPath(fieldPrefix, ''), message: 'upstream must be an object', code: ROUTE_MODEL_ERROR_CODES.VALIDATION_ERROR }] };
  }
  const errors: FieldError[] = [];
  const ctx: WalkContext = { mode: 'normalize', prefix: fieldPrefix, rootLabel: 'upstream', errors };
  const walked = walkObjectFields(UPSTREAM_SCHEMA, input, '', '', ctx) as Walked;
  const targets = foldTargets(input, walked, fieldPrefix, errors);
  errors.push(...crossFieldErrors(UPSTREAM_RULES, walked, fieldPrefix, errors));
  if (errors.length > 0 || targets === undefined) return { ok: false, errors };
  const { url: _shorthand, ...rest } = walked;
  const balancing = rest.balancing ?? { algorithm: UPSTREAM_DEFAULTS.algorithm };
  const hashOn = balancing.algorithm === 'consistent-hash' ? (balancing.hashOn ?? UPSTREAM_DEFAULTS.hashOn) : undefined;
  return { ok: true, value: { ...rest, name: rest.name as string, targets, balancing: hashOn === undefined ? balancing : { ...balancing, hashOn } } };
}

/** The targets of a canonical upstream, or of one stored before targets existed (`url` only). */
export function upstreamTargets(upstream: Pick<UpstreamDefinition, 'url' | 'targets'>): UpstreamTarget[] {
  if (upstream.targets !== undefined && upstream.targets.length > 0) return upstream.targets;
  return upstream.url === undefined ? [] : [{ url: upstream.url, weight: UPSTREAM_DEFAULTS.weight }];
}

/** `url` xor `targets`; targets distinct, sharing one scheme and path (the path replaces the route prefix). */
function foldTargets(input: Record<string, unknown>, walked: Walked, prefix: string, errors: FieldError[]): UpstreamTarget[] | undefined {
  const given = (key: string): boolean => input[key] !== undefined && input[key] !== null;
  const fail = (relative: string, message: string): undefined => {
    errors.push({ field: joinFieldPath(prefix, relative), message, code: ROUTE_MODEL_ERROR_CODES.VALIDATION_ERROR });
    return undefined;
  };
  if (given('url') && given('targets')) return fail('targets', 'targets cannot be given with url; list the url as a target');
  if (!given('url') && !given('targets')) return fail('url', 'url or targets is required');
  if (given('url')) return walked.url === undefined ? undefined : upstreamTargets({ url: walked.url });
  const targets = walked.targets;
  if (targets === undefined) return undefined;
  if (targets.length > MAX_UPSTREAM_TARGETS) return fail('targets', `targets may hold at most ${MAX_UPSTREAM_TARGETS} targets`);
  // A target whose url or weight failed is kept without that key (its error is already reported);
  // the others are still compared, so every problem is reported at once.
  const complete = targets.every((t) => t.url !== undefined && t.weight !== undefined);
  const seen = new Set<string>();
  const before = errors.length;
  const firstIndex = targets.findIndex((t) => t.url !== undefined);
  const first = new URL(targets[firstIndex]?.url ?? 'http://unset');
  targets.forEach((target, i) => {
    if (target.url === undefined) return;
    const url = new URL(target.url);
    const at = `${appendIndex('targets', i)}.url`;
    if (seen.has(url.origin)) fail(at, `Duplicate target ${url.origin}`);
    // One pooled agent type and one path rewrite serve every target of a route's upstream.
    else if (url.pathname !== first.pathname || url.protocol !== first.protocol) {
      fail(at, `every target of an upstream has the scheme and path of targets[${firstIndex}] (${first.protocol}, '${first.pathname}')`);
    }
    seen.add(url.origin);
  });
  return complete && errors.length === before ? targets : undefined;
}

const UPSTREAM_RULES: ReadonlyArray<CrossFieldRule<UpstreamDefinition>> = [
  healthCheckTimingRule<UpstreamDefinition>('healthCheck', (u) => u.healthCheck),
  {
    field: 'balancing.hashKey',
    check: ({ balancing: b }) =>
      b?.algorithm === 'consistent-hash' && (b.hashOn === 'header' || b.hashOn === 'cookie') && b.hashKey === undefined
        ? `balancing.hashKey is required when balancing.hashOn is ${b.hashOn}`
        : undefined,
  },
  {
    field: 'balancing.hashOn',
    check: ({ balancing: b }) =>
      b !== undefined && b.algorithm !== 'consistent-hash' && (b.hashOn !== undefined || b.hashKey !== undefined)
        ? 'balancing.hashOn and balancing.hashKey apply only to algorithm consistent-hash'
        : undefined,
  },
  {
    field: 'outlierDetection.maxEjectionTime',
    check: ({ outlierDetection: o }) =>
      o?.maxEjectionTime !== undefined && o.baseEjectionTime !== undefined && o.maxEjectionTime < o.baseEjectionTime
        ? 'outlierDetection.maxEjectionTime must be at least outlierDetection.baseEjectionTime'
        : undefined,
  },
];
