/**
 * Removes fields from a parsed JSON value. A path is field names joined by dots (`user.password`);
 * an array met on the way applies the rest of the path to each element (`items.secret` removes
 * `secret` from every item), as a user of Kong's response-transformer expects.
 */
export type ExcludePath = readonly string[];

export function compileExcludePaths(fields: readonly string[]): ExcludePath[] {
  return fields.map((field) => field.split('.'));
}

function removeAt(value: unknown, path: ExcludePath, depth: number): void {
  if (Array.isArray(value)) {
    for (const item of value) removeAt(item, path, depth);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  const key = path[depth] as string;
  if (!Object.hasOwn(record, key)) return;
  if (depth === path.length - 1) delete record[key];
  else removeAt(record[key], path, depth + 1);
}

export function excludeFields(value: unknown, paths: readonly ExcludePath[]): void {
  for (const path of paths) removeAt(value, path, 0);
}
