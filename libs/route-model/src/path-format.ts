// Decision 8: letters, digits, `-`, `_`, `.`; or a segment that is exactly `*`.
const SEGMENT = /^(?:\*|[A-Za-z0-9._-]+)$/;
// `.` and `..` would be resolved away by the data plane before matching, so a route on them could never match.
const DOTS_ONLY = /^\.+$/;

// A route path per decision 8: `/`, or `/`-separated non-empty segments (`/api/*`, `/api/*/resource`).
export function isValidRoutePath(path: string): boolean {
  if (path === '/') return true;
  if (path.charCodeAt(0) !== 47 /* '/' */) return false;
  for (const segment of path.slice(1).split('/')) {
    if (!SEGMENT.test(segment) || DOTS_ONLY.test(segment)) return false;
  }
  return true;
}
