import type { Route } from '@gateway/route-model';
import { UpstreamPool } from './upstream-client/upstream-pool';
import type { UpstreamTimeouts } from './upstream-client/upstream-connection';
import { tlsClientOptions, upstreamTlsKey, type TlsClientOptions, type UpstreamTls } from './upstream-tls';

/** Idle upstream sockets close before common servers' own 5 s keep-alive timeout (node's default). */
export const DEFAULT_UPSTREAM_KEEP_ALIVE_MS = 4000;

/** The logical origin of an upstream: what goes into Host and SNI, whatever address is dialed. */
export interface UpstreamOrigin {
  readonly secure: boolean;
  /** Host name or IP address, IPv6 without brackets. */
  readonly hostname: string;
  readonly port: number;
}

/** Where a route forwards to, parsed once when routes load. */
export interface UpstreamTarget extends UpstreamOrigin {
  readonly origin: string;
  /** `Host` sent upstream: the upstream's authority (the client's goes in X-Forwarded-Host). */
  readonly hostHeader: string;
  /** Path of the upstream URL, replacing the route's literal prefix (decision 15). */
  readonly basePath: string;
  /** TLS settings of an https upstream (also used by the WebSocket upgrade path). */
  readonly tls: UpstreamTls | undefined;
  /** The lean client's connections to this origin, shared by every route that points there. */
  readonly pool: UpstreamPool;
  /** Per request: `timeout.connect` bounds a new connection; response time is the deadline wheel's. */
  readonly timeouts: UpstreamTimeouts;
  /** The resolved address dialled instead of `hostname` (a named upstream's target after DNS re-resolution). */
  readonly address?: string;
}

export interface PoolOptions {
  readonly keepAliveMs: number;
  readonly tls: UpstreamTls | undefined;
  /** An address to dial instead of resolving `hostname` (a resolved target); Host and SNI stay the origin's. */
  readonly address?: string;
}

/**
 * Upstream connection pools (engine/upstream-client) per origin, address to dial, keep-alive time
 * and TLS settings, shared by every route that points there and kept across reloads, so a reload
 * never drops warm connections. A pool closes its idle connections after their keep-alive time.
 */
export class UpstreamPools {
  private readonly pools = new Map<string, UpstreamPool>();
  /**
   * One copy of each origin's strings and of each timeout setting, whatever the number of routes
   * pointing there (10,000 routes to one origin hold one `origin`, `host` and `hostname`).
   */
  private readonly shared = new Map<string, string>();
  private readonly timeouts = new Map<number, UpstreamTimeouts>();

  targetFor(route: Route, tls: UpstreamTls | undefined): UpstreamTarget {
    const url = new URL(route.upstream);
    const secure = url.protocol === 'https:';
    const hostname = this.one(url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname);
    const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
    const keepAliveMs = route.timeout.keepAlive ?? DEFAULT_UPSTREAM_KEEP_ALIVE_MS;
    const connectMs = route.timeout.connect ?? 0;
    let timeouts = this.timeouts.get(connectMs);
    if (timeouts === undefined) {
      timeouts = Object.freeze({ connectMs, firstByteMs: 0, idleMs: 0 });
      this.timeouts.set(connectMs, timeouts);
    }
    return {
      secure,
      hostname,
      port,
      origin: this.one(url.origin),
      hostHeader: this.one(url.host),
      basePath: url.pathname === '/' ? '' : url.pathname,
      tls: secure ? tls : undefined,
      pool: this.poolFor({ secure, hostname, port }, { keepAliveMs, tls: secure ? tls : undefined }),
      timeouts,
    };
  }

  private one(text: string): string {
    const known = this.shared.get(text);
    if (known !== undefined) return known;
    this.shared.set(text, text);
    return text;
  }

  /** The pool for one origin (and address to dial), created on first use. */
  poolFor(origin: UpstreamOrigin, options: PoolOptions): UpstreamPool {
    const { tls, address, keepAliveMs } = options;
    const key = `${origin.secure ? 'https' : 'http'}|${origin.hostname}|${origin.port}|${address ?? ''}|${keepAliveMs}|${upstreamTlsKey(tls)}`;
    let pool = this.pools.get(key);
    if (pool === undefined) {
      pool = new UpstreamPool({
        host: origin.hostname,
        port: origin.port,
        ...(address === undefined ? {} : { address }),
        keepAliveMs,
        // As node's http.Agent: no bound of its own; a route's limits and timeouts bound the traffic.
        maxConnections: Number.POSITIVE_INFINITY,
        ...(origin.secure ? { tls: tlsClientOptions(origin.hostname, tls) } : {}),
        ...(origin.secure && tls?.refusal !== undefined ? { refusal: tls.refusal } : {}),
      });
      this.pools.set(key, pool);
    }
    return pool;
  }

  /**
   * Drops pools that no route resolved since the last reload and that hold no connection any more.
   * A pool with connections stays until they close after their keep-alive time: a route of the new
   * table resolves its target at its first request (TableRoute), and finds its origin's
   * connections still warm. Dropped pools stay usable for requests of the previous table still in
   * flight (a retry after its backoff).
   */
  /** Whether prune could drop anything: a pool with connections stays whatever the routes, so without one the routes need no walk. */
  anyIdle(): boolean {
    for (const pool of this.pools.values()) if (pool.stats.open === 0) return true;
    return false;
  }

  prune(inUse: ReadonlySet<UpstreamPool>): void {
    for (const [key, pool] of this.pools) {
      if (!inUse.has(pool) && pool.stats.open === 0) this.pools.delete(key);
    }
  }

  destroy(): void {
    for (const pool of this.pools.values()) pool.close();
    this.pools.clear();
  }
}

/** Options for node's https.request (the WebSocket upgrade path) matching the pool's TLS settings. */
export function httpsOptionsOf(target: UpstreamTarget): TlsClientOptions {
  return tlsClientOptions(target.hostname, target.tls);
}
