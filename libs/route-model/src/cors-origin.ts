import type { Issue } from './field-spec';

/*
 * CORS origins as the route model accepts them: `*`, an exact serialized origin
 * (`https://app.example.com`, `http://localhost:3000`), or a pattern whose host starts with `*.`
 * (`https://*.example.com`: any subdomain, at any depth, never the bare domain). Patterns are plain
 * string comparisons, never user-written regular expressions: no pattern can make matching slow.
 */

const ORIGIN = /^(https?):\/\/(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/;
const LABELS = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/;

/** Origins are compared in lower case (RFC 6454 serializes scheme and host in lower case). */
export function normalizeCorsOrigin(value: string): string {
  return value.toLowerCase();
}

export function corsOriginCheck(value: string, label: string): Issue | undefined {
  if (value === '*') return undefined;
  const match = value.length <= 253 ? ORIGIN.exec(value) : null;
  const port = match?.[4];
  if (match === null || (port !== undefined && (Number(port) < 1 || Number(port) > 65_535)) || (match[2] !== undefined && match[3]?.startsWith('['))) {
    return { message: `${label} must be *, an origin (scheme://host[:port], no path) or a pattern such as https://*.example.com` };
  }
  return undefined;
}

/** Whether a request's Origin is one of `origins` (validated, lower case); compiled when routes load. */
export function compileCorsOrigins(origins: readonly string[]): (origin: string) => boolean {
  if (origins.includes('*')) return () => true;
  const exact = new Set<string>();
  // `https://*.example.com` -> prefix `https://`, suffix `.example.com`.
  const patterns: Array<{ prefix: string; suffix: string }> = [];
  for (const origin of origins) {
    const star = origin.indexOf('://*.');
    if (star === -1) exact.add(origin);
    else patterns.push({ prefix: origin.slice(0, star + 3), suffix: origin.slice(star + 4) });
  }
  return (raw) => {
    const origin = raw.toLowerCase();
    if (exact.has(origin)) return true;
    for (const { prefix, suffix } of patterns) {
      if (origin.length <= prefix.length + suffix.length || !origin.startsWith(prefix) || !origin.endsWith(suffix)) continue;
      // What the `*` stands for: one or more whole host labels.
      if (LABELS.test(origin.slice(prefix.length, origin.length - suffix.length))) return true;
    }
    return false;
  };
}
