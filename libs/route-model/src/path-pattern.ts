import { isValidRoutePath } from './path-format';

// A route path compiled once, when routes load (decision 15):
//  - exact    `/exact/path`     matches only that path (case-sensitive, no trailing-slash folding);
//  - prefix   `/prefix/*`       matches `/prefix` and everything below it;
//  - wildcard `/api/*/resource` a `*` before the last segment matches exactly one non-empty
//             segment (a final `/*` still means "and everything below").
export interface CompiledPathPattern {
  readonly source: string;
  readonly kind: 'exact' | 'prefix' | 'wildcard';
  /**
   * The path before the first `*`, without its trailing slash (`/api/*` -> `/api`, `/*` -> ''),
   * or the whole path when exact: the part the upstream path replaces when rewriting.
   */
  readonly literalPrefix: string;
  /** Segments after the leading `/`, `*` for a wildcard; [] for `/`. */
  readonly segments: readonly string[];
  /** Segments that are not `*` (decision 14's "more literal segments"). */
  readonly literalSegmentCount: number;
  /** The pattern ends in `/*` and so also matches every path below its last literal segment. */
  readonly matchesBelow: boolean;
}

/** Throws on a path that validateRoute would refuse: routes reach the matcher validated. */
export function compilePathPattern(path: string): CompiledPathPattern {
  if (!isValidRoutePath(path)) throw new TypeError(`Invalid path format: ${JSON.stringify(path)}`);
  const segments = path === '/' ? [] : path.slice(1).split('/');
  const firstStar = segments.indexOf('*');
  const matchesBelow = segments.length > 0 && segments[segments.length - 1] === '*';
  const kind = firstStar === -1 ? 'exact' : firstStar === segments.length - 1 ? 'prefix' : 'wildcard';
  const literalPrefix = firstStar === -1 ? path : segments.slice(0, firstStar).map((s) => `/${s}`).join('');
  return Object.freeze({
    source: path,
    kind,
    literalPrefix,
    segments: Object.freeze(segments),
    literalSegmentCount: segments.filter((s) => s !== '*').length,
    matchesBelow,
  });
}
