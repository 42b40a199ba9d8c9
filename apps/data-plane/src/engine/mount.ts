import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

export interface Mount {
  prefixes: readonly string[];
  handler(req: IncomingMessage, res: ServerResponse): void;
}

/**
 * Checked prefixes: each starts with `/`, has no query or fragment, and loses a trailing slash
 * (`/api/` and `/api` mean the same mount). Throws naming the bad one.
 */
export function mountPrefixes(prefixes: readonly unknown[]): string[] {
  if (!Array.isArray(prefixes) || prefixes.length === 0) throw new TypeError('mount.prefixes must be a non-empty array of paths');
  return prefixes.map((prefix, i) => {
    if (typeof prefix !== 'string' || !/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(prefix)) {
      throw new TypeError(`mount.prefixes[${i}] must be a path starting with '/' (no query, no spaces)`);
    }
    const trimmed = prefix.replace(/\/+$/, '');
    if (trimmed === '') throw new TypeError(`mount.prefixes[${i}] must not be '/' (it would take every request)`);
    return trimmed;
  });
}

/**
 * Whether the raw request target is under a prefix: the prefix itself, `prefix/...` or
 * `prefix?...` (never `/apis` for `/api`). The raw target is used on purpose: the mounted
 * application routes on it, so both must agree on what the path is.
 */
export function isUnderPrefix(url: string, prefixes: readonly string[]): boolean {
  for (let i = 0; i < prefixes.length; i += 1) {
    const prefix = prefixes[i] as string;
    if (!url.startsWith(prefix)) continue;
    const next = url.charCodeAt(prefix.length);
    if (Number.isNaN(next) || next === 47 /* / */ || next === 63 /* ? */) return true;
  }
  return false;
}

/**
 * One-process mode: requests under the mount's prefixes go to its handler untouched (no route
 * matching, no gateway policies or headers: the mounted application sets its own); every other
 * request goes on to the data plane. The server's own limits (header size, header and request
 * timeouts) apply to both because they belong to the socket.
 */
export function withMount(mount: Mount, next: RequestListener): RequestListener {
  const prefixes = mountPrefixes(mount.prefixes);
  const handler = mount.handler;
  return (req, res) => {
    if (isUnderPrefix(req.url ?? '', prefixes)) handler(req, res);
    else next(req, res);
  };
}
