import type { CompiledPathPattern } from './path-pattern';

/**
 * Decision 15: the pattern's literal prefix (the whole path when exact) is replaced by the upstream
 * URL's path and the rest of the request path is appended; with stripPath false the whole request
 * path is appended instead. `/api/*` + upstream path `/v1`: `/api/users/1` -> `/v1/users/1`,
 * `/api` -> `/v1`. An upstream path of '' or '/' means none; never `//` at the join; never ''.
 * `requestPath` is the normalized path the pattern matched, without the query (the caller keeps it).
 */
export function rewriteUpstreamPath(pattern: CompiledPathPattern, requestPath: string, upstreamBasePath: string, stripPath: boolean): string {
  const prefix = pattern.literalPrefix;
  const rest = stripPath && startsWithSegments(requestPath, prefix) ? requestPath.slice(prefix.length) : requestPath;
  return joinPaths(upstreamBasePath === '/' ? '' : upstreamBasePath, rest);
}

/** `/api` is a prefix of `/api` and `/api/x`, not of `/apix`: a path the pattern did not match is forwarded whole, not cut. */
function startsWithSegments(path: string, prefix: string): boolean {
  if (!path.startsWith(prefix)) return false;
  return path.length === prefix.length || prefix === '' || path.charCodeAt(prefix.length) === 47;
}

function joinPaths(base: string, rest: string): string {
  if (base === '') return rest === '' ? '/' : rest.charCodeAt(0) === 47 ? rest : `/${rest}`;
  if (rest === '') return base;
  const baseSlash = base.charCodeAt(base.length - 1) === 47;
  const restSlash = rest.charCodeAt(0) === 47;
  if (baseSlash && restSlash) return base + rest.slice(1);
  if (baseSlash || restSlash) return base + rest;
  return `${base}/${rest}`;
}
