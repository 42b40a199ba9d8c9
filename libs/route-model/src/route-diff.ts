import type { Route } from './route.types';
import { deepEqual } from './deep-equal';

export interface RouteDiff {
  added: Route[];
  changed: Array<{ before: Route; after: Route; fields: string[] }>;
  removed: Route[];
}

// Timestamps move on every save without changing what the route does.
const IGNORED: ReadonlySet<string> = new Set(['createdAt', 'updatedAt']);

/**
 * What a reload or sync changes, matching routes by id. `fields` lists the top-level keys that
 * differ, sorted. `added` and `changed` follow `after`'s order, `removed` follows `before`'s.
 */
export function diffRoutes(before: readonly Route[], after: readonly Route[]): RouteDiff {
  const previous = new Map(before.map((route) => [route.id, route]));
  const next = new Set(after.map((route) => route.id));
  const diff: RouteDiff = { added: [], changed: [], removed: [] };
  for (const route of after) {
    const old = previous.get(route.id);
    if (old === undefined) {
      diff.added.push(route);
      continue;
    }
    const fields = changedFields(old, route);
    if (fields.length > 0) diff.changed.push({ before: old, after: route, fields });
  }
  for (const route of before) if (!next.has(route.id)) diff.removed.push(route);
  return diff;
}

function changedFields(before: Route, after: Route): string[] {
  const left = before as unknown as Record<string, unknown>;
  const right = after as unknown as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  return [...keys].filter((key) => !IGNORED.has(key) && !deepEqual(left[key], right[key])).sort();
}
