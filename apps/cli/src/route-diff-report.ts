import type { Route, RouteDiff } from '@gateway/route-model';

/** Human-readable route changes: `+` added, `~` changed (with the changed fields), `-` removed. */
export function formatRouteDiff(diff: RouteDiff): string[] {
  const lines = [
    ...diff.added.map((route) => `  + ${describe(route)}`),
    ...diff.changed.map((change) => `  ~ ${describe(change.after)}  (changed: ${change.fields.join(', ')})`),
    ...diff.removed.map((route) => `  - ${describe(route)}`),
  ];
  const summary = `${diff.added.length} added, ${diff.changed.length} changed, ${diff.removed.length} removed`;
  return lines.length === 0 ? ['  (no route changes)', summary] : [...lines, summary];
}

function describe(route: Route): string {
  const methods = route.methods === undefined || route.methods.length === 0 ? '' : `${route.methods.join(',')} `;
  return `${route.id}  ${methods}${route.path} -> ${route.upstreamName ?? route.upstream}`;
}
