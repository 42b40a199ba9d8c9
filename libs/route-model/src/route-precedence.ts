import type { Route } from './route.types';
import type { CompiledPathPattern } from './path-pattern';

/** What decision 14 orders routes by, computed once per route. */
export interface PrecedenceKey {
  readonly priority: number;
  readonly pattern: CompiledPathPattern;
  /** ms since the epoch; Infinity when unknown (no or unparsable createdAt). */
  readonly createdAt: number;
  /** Position in the list the routes came in. */
  readonly position: number;
}

export function precedenceKey(route: Route, pattern: CompiledPathPattern, position: number): PrecedenceKey {
  const created = route.createdAt === undefined ? Number.NaN : Date.parse(route.createdAt);
  return { priority: route.priority, pattern, createdAt: Number.isNaN(created) ? Number.POSITIVE_INFINITY : created, position };
}

/**
 * Decision 14, negative when `a` wins: higher priority; then exact before patterns; then more
 * literal segments; then longer literal prefix; then the older route (routes without createdAt,
 * such as proxy.yml ones, count as newest); then the earlier position. A total order, so every
 * request has exactly one winner.
 */
export function comparePrecedence(a: PrecedenceKey, b: PrecedenceKey): number {
  return (
    b.priority - a.priority ||
    exactRank(a.pattern) - exactRank(b.pattern) ||
    b.pattern.literalSegmentCount - a.pattern.literalSegmentCount ||
    b.pattern.literalPrefix.length - a.pattern.literalPrefix.length ||
    compareTimes(a.createdAt, b.createdAt) ||
    a.position - b.position
  );
}

function exactRank(pattern: CompiledPathPattern): number {
  return pattern.kind === 'exact' ? 0 : 1;
}

// Infinity - Infinity is NaN, which `||` would treat as a tie only by accident; compare explicitly.
function compareTimes(a: number, b: number): number {
  return a === b ? 0 : a < b ? -1 : 1;
}
