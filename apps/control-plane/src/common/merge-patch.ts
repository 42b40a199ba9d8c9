/** A JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * JSON merge patch (RFC 7396) of `patch` over `target`: objects merge, arrays and scalars
 * replace, `null` removes a field. Neither argument is changed.
 */
export function mergePatch(target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (isJsonObject(value) && isJsonObject(out[key])) out[key] = mergePatch(out[key], value);
    else out[key] = value;
  }
  return out;
}
