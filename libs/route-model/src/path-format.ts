// Decision 8: `/`-separated segments of letters, digits, `-`, `_`, `.`; or a segment that is exactly `*`.
const SEGMENTS = /^(?:\/(?:\*|[A-Za-z0-9._-]+))+$/;
// `.` and `..` would be resolved away by the data plane before matching, so a route on them could never match.
const DOTS_ONLY_SEGMENT = /\/\.+(?=\/|$)/;

// A route path per decision 8: `/`, or `/`-separated non-empty segments (`/api/*`, `/api/*/resource`).
// Two scans of the whole path, no array of segments: a 10,000-route file checks 10,000 paths at start-up.
export function isValidRoutePath(path: string): boolean {
  if (path === '/') return true;
  return SEGMENTS.test(path) && !DOTS_ONLY_SEGMENT.test(path);
}
