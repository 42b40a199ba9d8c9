import { NAME_PATTERN, upstreamTargets, type FieldError, type UpstreamDefinition } from '@gateway/route-model';

/** The field of a body that holds the upstream: `upstream`, or variant B's `target` (decision 6). */
function upstreamField(input: Record<string, unknown>): 'upstream' | 'target' {
  return input['upstream'] === undefined && input['target'] !== undefined ? 'target' : 'upstream';
}

/**
 * An API route's `upstream` may name an upstream (proxy.yml's or the API's) instead of being a
 * URL, as in proxy.yml (spec 2.6). Returns the upstreams `normalizeRoute` resolves the name
 * against: the named one, or none when the value is left to the URL check.
 *
 * `upstreamName` is server-set; a body copied from a GET answer carries it beside `upstream` (the
 * first target's URL at the time of writing). Such a body keeps naming the upstream while its
 * `upstream` is still one of that upstream's targets; a body that changed `upstream` points there.
 */
export function resolveUpstreamReference(input: Record<string, unknown>, catalog: readonly UpstreamDefinition[]): UpstreamDefinition[] | undefined {
  const field = upstreamField(input);
  const sentName = input['upstreamName'];
  delete input['upstreamName'];
  if (typeof sentName === 'string') {
    const named = catalog.find((u) => u.name === sentName);
    const shown = input[field];
    if (named !== undefined && (shown === undefined || upstreamTargets(named).some((t) => t.url === shown))) input[field] = sentName;
  }
  const value = input[field];
  if (typeof value !== 'string' || value.includes('://')) return undefined;
  const named = catalog.find((u) => u.name === value);
  return named === undefined ? undefined : [named];
}

/**
 * A value that is neither a URL nor a known upstream fails the URL check (spec 7.2: "Invalid URL");
 * the field's message then says a name was possible too, so a typo in a name is recognisable.
 */
export function explainUnknownUpstream(errors: readonly FieldError[], input: Record<string, unknown>): FieldError[] {
  const field = upstreamField(input);
  const value = input[field];
  return errors.map((error) =>
    error.field === field && error.code === 'INVALID_URL' && typeof value === 'string' && NAME_PATTERN.test(value)
      ? { ...error, message: `Invalid URL: '${value.slice(0, 64)}' is neither an absolute http(s) URL nor the name of an upstream (GET /api/upstreams lists them)` }
      : error,
  );
}
