import { isPlainObject } from './schema-walker';

const MAX_ID = 64;

/**
 * Ids for proxy.yml routes that declare none. Long-lived state (rate-limit buckets, breakers,
 * metrics) is keyed by route id, so a reload must give a route the id it had: the id is derived
 * from the path (`/api/*` -> `file-api-star`), never random. Declared ids are reserved first;
 * a repeated slug gets `-2`, `-3`, ... in file order. Entries with a declared id get undefined.
 */
export function fileRouteIds(routes: readonly unknown[]): Array<string | undefined> {
  const taken = new Set<string>();
  for (let i = 0; i < routes.length; i += 1) {
    const route = routes[i];
    if (isPlainObject(route) && typeof route.id === 'string') taken.add(route.id);
  }
  const ids = new Array<string | undefined>(routes.length).fill(undefined);
  for (let i = 0; i < routes.length; i += 1) {
    const route = routes[i];
    if (!isPlainObject(route) || (route.id !== undefined && route.id !== null)) continue;
    const base = fileRouteIdBase(typeof route.path === 'string' ? route.path : '');
    let id = base;
    for (let n = 2; taken.has(id); n += 1) id = withSuffix(base, `-${n}`);
    taken.add(id);
    ids[i] = id;
  }
  return ids;
}

/** `file-` + the path's segments joined by `-` (`*` -> `star`, other characters -> `_`); at most 64 characters. */
export function fileRouteIdBase(path: string): string {
  const slug = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => (segment === '*' ? 'star' : segment.replace(/[^A-Za-z0-9_-]/g, '_')))
    .join('-');
  const id = `file-${slug === '' ? 'root' : slug}`;
  // Long paths keep a readable head and a hash of the whole path, so two long paths stay distinct.
  return id.length <= MAX_ID ? id : `${id.slice(0, MAX_ID - 9)}-${fnv1a32(path)}`;
}

function withSuffix(base: string, suffix: string): string {
  return base.length + suffix.length <= MAX_ID ? base + suffix : base.slice(0, MAX_ID - suffix.length) + suffix;
}

/** FNV-1a, 32 bits, as 8 hex digits: a stable, dependency-free fingerprint (not a security hash). */
function fnv1a32(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
