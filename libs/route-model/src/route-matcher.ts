import type { Route } from './route.types';
import { methodBit, routeMethodMask } from './method-mask';
import { compilePathPattern, type CompiledPathPattern } from './path-pattern';
import { comparePrecedence, precedenceKey, type PrecedenceKey } from './route-precedence';
import { sortSteps } from './sort-steps';

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
  /** Decision 14's order as a number; spaced out (RANK_GAP) so an update can slot a route in between. */
  rank: number;
  readonly methods: number;
  readonly key: PrecedenceKey;
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

export interface RouteMatcherEntry<T> {
  route: Route;
  value: T;
  /** The route's compiled path, when the caller already has it (saves compiling it again). */
  pattern?: CompiledPathPattern;
}

/**
 * A matcher that can take a few route changes in place (a route changed through the control
 * plane), in time that follows the depth of the changed paths, not the number of routes.
 */
export interface UpdatableRouteMatcher<T> extends RouteMatcher<T> {
  /**
   * Removes `removed` (by value), then adds `added`. An added entry that `replaces` a removed value
   * takes its place in the list order (decision 14's last tie-break); any other one goes last, as
   * it would at the end of the list. Disabled routes are not indexed and hold no place (a caller
   * drops them from its list too). Mutates this matcher: callers hand it from the table it
   * served to the next one, and match only on the new one (matching is synchronous, so no request
   * sees a half-applied update).
   */
  update(removed: ReadonlyArray<{ route: Route; value: T }>, added: ReadonlyArray<RouteMatcherEntry<T> & { replaces?: T }>): void;
}

/** Ranks are spaced this far apart, so about 16 routes can be slotted between two before a renumbering. */
const RANK_GAP = 1 << 16;
/** How many entries a build step handles before it yields (routeMatcherSteps). */
const STEP = 256;

/**
 * Builds the matcher for a route table snapshot. Everything is precomputed here: patterns,
 * decision 14's order (as one rank per route), method masks and the match results; a lookup then
 * walks the path's segments once per trie branch, so its cost follows the path's depth, not the
 * number of routes. Disabled routes are not indexed.
 */
export function createRouteMatcher<T>(entries: ReadonlyArray<RouteMatcherEntry<T>>): UpdatableRouteMatcher<T> {
  const steps = routeMatcherSteps(entries);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * The same build in steps of a few hundred routes: the caller runs `next()` until done and may
 * yield to its event loop between steps, so a table of 10,000 routes never blocks it in one piece.
 */
export function* routeMatcherSteps<T>(entries: ReadonlyArray<RouteMatcherEntry<T>>): Generator<void, UpdatableRouteMatcher<T>, void> {
  const prepared: Array<Candidate<T>> = [];
  for (let position = 0; position < entries.length; position += 1) {
    const entry = entries[position] as RouteMatcherEntry<T>;
    if (entry.route.enabled === false) continue;
    prepared.push(candidateFor(entry, position));
    if (position % STEP === STEP - 1) yield;
  }
  yield* sortSteps(prepared, (a, b) => comparePrecedence(a.key, b.key), STEP);
  const root = newNode<T>();
  for (let i = 0; i < prepared.length; i += 1) {
    const candidate = prepared[i] as Candidate<T>;
    candidate.rank = (i + 1) * RANK_GAP;
    // Candidates arrive in rank order, so appending keeps every list sorted.
    insert(root, candidate);
    if (i % STEP === STEP - 1) yield;
  }
  return new TrieMatcher(root, prepared, entries.length);
}

function candidateFor<T>(entry: RouteMatcherEntry<T>, position: number): Candidate<T> {
  const pattern = entry.pattern ?? compilePathPattern(entry.route.path);
  return {
    rank: 0,
    methods: routeMethodMask(entry.route),
    key: precedenceKey(entry.route, pattern, position),
    result: Object.freeze({ value: entry.value, route: entry.route, pattern }),
  };
}

class TrieMatcher<T> implements UpdatableRouteMatcher<T> {
  constructor(
    private readonly root: TrieNode<T>,
    /** Every candidate in rank order: where an update finds the neighbours of a new route. */
    private readonly ordered: Array<Candidate<T>>,
    /** Next list position for a route added at the end. */
    private nextPosition: number,
  ) {}

  get size(): number {
    return this.ordered.length;
  }

  match(method: string, path: string): RouteMatch<T> | undefined {
    if (path.charCodeAt(0) !== 47 /* '/' */) return undefined;
    // '/' has no segment; otherwise the first one starts after the leading slash.
    return search(this.root, path, path.length === 1 ? 2 : 1, methodBit(method), undefined)?.result;
  }

  update(removed: ReadonlyArray<{ route: Route; value: T }>, added: ReadonlyArray<RouteMatcherEntry<T> & { replaces?: T }>): void {
    const positions = new Map<T, number>();
    for (const { route, value } of removed) {
      const candidate = this.remove(route, value);
      if (candidate !== undefined) positions.set(value, candidate.key.position);
    }
    for (const entry of added) {
      if (entry.route.enabled === false) continue;
      const replaced = entry.replaces === undefined ? undefined : positions.get(entry.replaces);
      const candidate = candidateFor(entry, replaced ?? this.nextPosition++);
      const at = this.insertionIndex(candidate.key);
      const before = at === 0 ? 0 : (this.ordered[at - 1] as Candidate<T>).rank;
      const after = at === this.ordered.length ? before + 2 * RANK_GAP : (this.ordered[at] as Candidate<T>).rank;
      this.ordered.splice(at, 0, candidate);
      if (after - before < 2) {
        this.renumber();
      } else {
        candidate.rank = Math.floor((before + after) / 2);
      }
      insert(this.root, candidate);
    }
  }

  /** First index whose candidate loses to `key` (binary search over decision 14's total order). */
  private insertionIndex(key: PrecedenceKey): number {
    let low = 0;
    let high = this.ordered.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (comparePrecedence((this.ordered[mid] as Candidate<T>).key, key) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private remove(route: Route, value: T): Candidate<T> | undefined {
    const pattern = compilePathPattern(route.path);
    const walked = pattern.matchesBelow ? pattern.segments.length - 1 : pattern.segments.length;
    const path: Array<TrieNode<T>> = [this.root];
    let node: TrieNode<T> | null | undefined = this.root;
    for (let i = 0; i < walked && node; i += 1) {
      const segment = pattern.segments[i] as string;
      node = segment === '*' ? node.star : node.literal?.get(segment);
      if (node) path.push(node);
    }
    if (!node) return undefined;
    const list = pattern.matchesBelow ? node.below : node.exact;
    const index = list?.findIndex((c) => c.result.value === value) ?? -1;
    if (list === null || index === -1) return undefined;
    const [candidate] = list.splice(index, 1) as [Candidate<T>];
    if (list.length === 0) {
      if (pattern.matchesBelow) node.below = null;
      else node.exact = null;
    }
    const at = this.ordered.indexOf(candidate, Math.max(0, this.insertionIndex(candidate.key) - 1));
    if (at !== -1) this.ordered.splice(at, 1);
    // Only the nodes whose best rank was this candidate's need their minimum looked at again.
    for (let i = path.length - 1; i >= 0; i -= 1) {
      const on = path[i] as TrieNode<T>;
      if (on.minRank !== candidate.rank) break;
      on.minRank = subtreeMinRank(on);
    }
    return candidate;
  }

  /** Spreads the ranks out again (an update ran out of room between two neighbours). */
  private renumber(): void {
    this.ordered.forEach((candidate, i) => {
      candidate.rank = (i + 1) * RANK_GAP;
    });
    resetMinRanks(this.root);
  }
}

function subtreeMinRank<T>(node: TrieNode<T>): number {
  let min = Math.min(node.exact?.[0]?.rank ?? Number.POSITIVE_INFINITY, node.below?.[0]?.rank ?? Number.POSITIVE_INFINITY);
  if (node.star !== null) min = Math.min(min, node.star.minRank);
  if (node.literal !== null) for (const child of node.literal.values()) min = Math.min(min, child.minRank);
  return min;
}

function resetMinRanks<T>(node: TrieNode<T>): number {
  if (node.star !== null) resetMinRanks(node.star);
  if (node.literal !== null) for (const child of node.literal.values()) resetMinRanks(child);
  node.minRank = subtreeMinRank(node);
  return node.minRank;
}

function newNode<T>(): TrieNode<T> {
  return { literal: null, star: null, exact: null, below: null, minRank: Number.POSITIVE_INFINITY };
}

function insert<T>(root: TrieNode<T>, candidate: Candidate<T>): void {
  const pattern = candidate.result.pattern;
  const walked = pattern.matchesBelow ? pattern.segments.length - 1 : pattern.segments.length;
  let node = root;
  node.minRank = Math.min(node.minRank, candidate.rank);
  for (let i = 0; i < walked; i += 1) {
    const segment = pattern.segments[i] as string;
    node = segment === '*' ? (node.star ??= newNode()) : childOf(node, segment);
    node.minRank = Math.min(node.minRank, candidate.rank);
  }
  const list = pattern.matchesBelow ? (node.below ??= []) : (node.exact ??= []);
  // Lists stay sorted by rank: a build appends in rank order, an update slots a route in.
  let at = list.length;
  while (at > 0 && (list[at - 1] as Candidate<T>).rank > candidate.rank) at -= 1;
  list.splice(at, 0, candidate);
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
