import type { BoundCounter } from '../ports';
import type { UpstreamPools, UpstreamTarget } from '../upstream-target';

/** A configured target as the balancer knows it: parsed once when the upstream loads. */
export interface TargetAddress {
  /** Position in the upstream's `targets` (metrics and /health/deep name targets by it and by `hostPort`). */
  readonly index: number;
  readonly origin: string;
  readonly secure: boolean;
  /** Host name or IP literal (IPv6 without brackets). */
  readonly hostname: string;
  readonly port: number;
  /** `Host` sent upstream and the label of the target: `host:port`, never the URL's path. */
  readonly hostPort: string;
  readonly weight: number;
}

/** Counters of one target, bound once (no label hashing per request). */
export interface TargetCounters {
  readonly success: BoundCounter;
  readonly failure: BoundCounter;
}

/**
 * One place traffic can go: a target, or one of the addresses its host name resolved to. Holds
 * the state balancing and outlier detection need; it lives as long as its target and address do,
 * across reloads and re-resolutions, so counts and ejections are not reset by them.
 */
export class UpstreamEndpoint {
  /** Requests sent here whose exchange has not completed (least-connections). */
  inFlight = 0;
  /** Smooth weighted round-robin's running weight (nginx's `current_weight`). */
  currentWeight = 0;
  /** The active health check's verdict on the target (false only when Unhealthy). */
  activelyHealthy = true;
  consecutiveFailures = 0;
  /** Ejections so far (each lasts baseEjectionTime times this, capped). */
  ejections = 0;
  /** Date.now() until which the endpoint is ejected; 0 when it never was. */
  ejectedUntil = 0;
  private readonly dials = new WeakMap<object, UpstreamTarget>();

  constructor(
    readonly target: TargetAddress,
    /** The resolved IP dialled instead of the host name; undefined dials the name itself. */
    readonly address: string | undefined,
    readonly counters: TargetCounters,
  ) {}

  /** `origin|address`: what identifies this endpoint across reloads. */
  get key(): string {
    return endpointKey(this.target.origin, this.address);
  }

  get weight(): number {
    return this.target.weight;
  }

  isEjected(now: number): boolean {
    return this.ejectedUntil > now;
  }

  /** Healthy for the active check and not ejected by outlier detection. */
  isAvailable(now: number): boolean {
    return this.activelyHealthy && this.ejectedUntil <= now;
  }

  /**
   * Where forward() sends a request for a route: this endpoint's origin (Host and SNI) dialled at
   * its resolved address, through a lean-client pool with the route's keep-alive time and TLS
   * settings. Made once per route target (the route's pool object is the key).
   */
  dialFor(route: UpstreamTarget, pools: UpstreamPools): UpstreamTarget {
    let dial = this.dials.get(route.pool);
    if (dial === undefined) {
      const { secure, hostname, port, origin, hostPort } = this.target;
      // A target whose scheme differs from the route's (an upstream changed after the route compiled) has no TLS settings of the route's.
      const tls = secure && route.secure ? route.tls : undefined;
      const address = this.address;
      dial = {
        secure,
        hostname,
        port,
        origin,
        hostHeader: hostPort,
        basePath: route.basePath,
        tls,
        pool: pools.poolFor({ secure, hostname, port }, { keepAliveMs: route.pool.keepAliveMs, tls, ...(address === undefined ? {} : { address }) }),
        timeouts: route.timeouts,
        ...(address === undefined ? {} : { address }),
      };
      this.dials.set(route.pool, dial);
    }
    return dial;
  }
}

export function endpointKey(origin: string, address: string | undefined): string {
  return address === undefined ? origin : `${origin}|${address}`;
}
