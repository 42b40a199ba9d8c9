import type { Route } from './route.types';
import { methodBit, routeMethodMask } from './method-mask';
import { compilePathPattern, type CompiledPathPattern } from './path-pattern';
import { comparePrecedence, precedenceKey } from './route-precedence';

export interface RouteMatch<T> {
  value: T;
  route: Route;
  pattern: CompiledPathPattern;
}

export interface RouteMatcher<T> {
  /** The winning route for a normalized path (no query, dot segments resolved), or undefined. */
  match(method: string, path: string): RouteMatch<T> | undefined;
  /** Routes that can match (disabled ones are left out). */
  readonly size: number;
}

/** One route in the index; `result` is built once and returned as is, so a match allocates nothing. */
interface Candidate<T> {
  readonly rank: number;
  readonly methods: number;
  readonly result: RouteMatch<T>;
}

/**
 * A segment trie. A pattern is stored at the node its segments lead to: in `exact` when the
 * path must end there, in `below` when it ends in `/*` (the node then matches itself and every
 * path under it). `*` in the middle is the `star` child. Candidate lists are sorted by rank.
 */
interface TrieNode<T> {
  literal: Map<string, TrieNode<T>> | null;
  star: TrieNode<T> | null;
  exact: Array<Candidate<T>> | null;
  below: Array<Candidate<T>> | null;
  /** Best (lowest) rank anywhere in this subtree: lets a search skip branches that cannot win. */
  minRank: number;
}

/**
 * Builds the matcher for a route table snapshot. Everything is precomputed here: patterns,
 * decision 14's order (as one rank per route), method masks and the match results; a lookup then
 * walks the path's segments once per trie branch, so its cost follows the path's depth, not the
 * number of routes. Disabled routes are not indexed.
 */
export function createRouteMatcher<T>(entries: ReadonlyArray<{ route: Route; value: T }>): RouteMatcher<T> {
  const prepared = entries
    .map((entry, position) => {
      const pattern = compilePathPattern(entry.route.path);
      return { entry, pattern, key: precedenceKey(entry.route, pattern, position) };
    })
    .filter(({ entry }) => entry.route.enabled !== false)
    .sort((a, b) => comparePrecedence(a.key, b.key));

  const root = newNode<T>();
  prepared.forEach(({ entry, pattern }, rank) => {
    insert(root, pattern, {
      rank,
      methods: routeMethodMask(entry.route),
      result: Object.freeze({ value: entry.value, route: entry.route, pattern }),
    });
  });
  const size = prepared.length;

  return {
    size,
    match(method: string, path: string): RouteMatch<T> | undefined {
      if (path.charCodeAt(0) !== 47 /* '/' */) return undefined;
      // '/' has no segment; otherwise the first one starts after the leading slash.
      return search(root, path, path.length === 1 ? 2 : 1, methodBit(method), undefined)?.result;
    },
  };
}

function newNode<T>(): TrieNode<T> {
  return { literal: null, star: null, exact: null, below: null, minRank: Number.POSITIVE_INFINITY };
}

function insert<T>(root: TrieNode<T>, pattern: CompiledPathPattern, candidate: Candidate<T>): void {
  const walked = pattern.matchesBelow ? pattern.segments.length - 1 : pattern.segments.length;
  let node = root;
  node.minRank = Math.min(node.minRank, candidate.rank);
  for (let i = 0; i < walked; i += 1) {
    const segment = pattern.segments[i] as string;
    node = segment === '*' ? (node.star ??= newNode()) : childOf(node, segment);
    node.minRank = Math.min(node.minRank, candidate.rank);
  }
  // Candidates arrive in rank order, so pushing keeps every list sorted.
  if (pattern.matchesBelow) (node.below ??= []).push(candidate);
  else (node.exact ??= []).push(candidate);
}

function childOf<T>(node: TrieNode<T>, segment: string): TrieNode<T> {
  node.literal ??= new Map();
  let child = node.literal.get(segment);
  if (child === undefined) {
    child = newNode();
    node.literal.set(segment, child);
  }
  return child;
}

/**
 * The best candidate under `node` for the segments of `path` from index `start` on, better than
 * `best` if any. Segments are read in place (no split array); `start > path.length` means none is
 * left, and `start === path.length` is the empty segment after a trailing slash. Literal and star
 * branches are both explored (either may hold the winner); a subtree whose best rank cannot beat
 * `best` is skipped.
 */
function search<T>(node: TrieNode<T>, path: string, start: number, bit: number, best: Candidate<T> | undefined): Candidate<T> | undefined {
  if (best !== undefined && node.minRank >= best.rank) return best;
  best = better(best, firstAllowed(node.below, bit));
  if (start > path.length) return better(best, firstAllowed(node.exact, bit));
  let end = path.indexOf('/', start);
  if (end === -1) end = path.length;
  if (node.literal !== null) {
    const child = node.literal.get(path.slice(start, end));
    if (child !== undefined) best = search(child, path, end + 1, bit, best);
  }
  // `*` stands for one segment; the empty segment of a trailing slash is not one.
  if (node.star !== null && end > start) best = search(node.star, path, end + 1, bit, best);
  return best;
}

function firstAllowed<T>(candidates: Array<Candidate<T>> | null, bit: number): Candidate<T> | undefined {
  if (candidates === null) return undefined;
  for (let i = 0; i < candidates.length; i += 1) {
    const candidate = candidates[i] as Candidate<T>;
    if ((candidate.methods & bit) !== 0) return candidate;
  }
  return undefined;
}

function better<T>(a: Candidate<T> | undefined, b: Candidate<T> | undefined): Candidate<T> | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return b.rank < a.rank ? b : a;
}
