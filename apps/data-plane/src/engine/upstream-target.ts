import net from 'node:net';
import type { Route } from '@gateway/route-model';
import { UpstreamPool } from './upstream-client/upstream-pool';
import type { UpstreamTimeouts } from './upstream-client/upstream-connection';
import { upstreamTlsKey, type UpstreamTls } from './upstream-tls';

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

  targetFor(route: Route, tls: UpstreamTls | undefined): UpstreamTarget {
    const url = new URL(route.upstream);
    const secure = url.protocol === 'https:';
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
    const origin: UpstreamOrigin = { secure, hostname, port };
    const keepAliveMs = route.timeout.keepAlive ?? DEFAULT_UPSTREAM_KEEP_ALIVE_MS;
    return {
      ...origin,
      origin: url.origin,
      hostHeader: url.host,
      basePath: url.pathname === '/' ? '' : url.pathname,
      tls: secure ? tls : undefined,
      pool: this.poolFor(origin, { keepAliveMs, tls: secure ? tls : undefined }),
      timeouts: { connectMs: route.timeout.connect ?? 0, firstByteMs: 0, idleMs: 0 },
    };
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
        ...(origin.secure ? { tls: tlsOptionsOf(origin.hostname, tls) } : {}),
        ...(origin.secure && tls?.refusal !== undefined ? { refusal: tls.refusal } : {}),
      });
      this.pools.set(key, pool);
    }
    return pool;
  }

  /**
   * Drops pools no route uses any more and closes their idle connections. They stay usable for
   * requests of the previous table still in flight (a retry after its backoff), whose connections
   * close after their keep-alive time.
   */
  prune(inUse: ReadonlySet<UpstreamPool>): void {
    for (const [key, pool] of this.pools) {
      if (inUse.has(pool)) continue;
      pool.closeIdle();
      this.pools.delete(key);
    }
  }

  destroy(): void {
    for (const pool of this.pools.values()) pool.close();
    this.pools.clear();
  }
}

/** The client's TLS options: SNI is the configured server name or the host name, never an IP literal. */
function tlsOptionsOf(hostname: string, tls: UpstreamTls | undefined): NonNullable<ConstructorParameters<typeof UpstreamPool>[0]['tls']> {
  const servername = tls?.serverName ?? hostname;
  return {
    servername,
    ...(tls?.ca === undefined ? {} : { ca: tls.ca }),
    rejectUnauthorized: tls?.verify ?? true,
  };
}

/** Options for node's https.request (the WebSocket upgrade path) matching the pool's TLS settings. */
export function httpsOptionsOf(target: UpstreamTarget): { servername?: string; ca?: Buffer; rejectUnauthorized: boolean } {
  const servername = target.tls?.serverName ?? target.hostname;
  return {
    ...(net.isIP(servername) === 0 ? { servername } : {}),
    ...(target.tls?.ca === undefined ? {} : { ca: target.tls.ca }),
    rejectUnauthorized: target.tls?.verify ?? true,
  };
}
