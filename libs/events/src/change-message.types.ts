import type { Route, SessionAuthenticationConfig, UpstreamDefinition } from '@gateway/route-model';
import type { ApiKeyDigest } from './api-key-digest';

/**
 * What the control plane tells data planes when the route set changes. Messages are hints:
 * pub/sub can lose them, so every message carries the configuration version it produced and a
 * data plane that sees a gap fetches a full snapshot instead of trusting the stream.
 *
 * `version` is the control plane's configuration revision: it grows by exactly 1 with every change
 * of the route set, so `version === current + 1` means nothing was missed.
 */
export type RouteChangeMessage =
  /** Created, changed, toggled or restored. A route with `enabled: false` stops being served. */
  | { kind: 'upserted'; version: number; route: Route }
  /** Soft or permanent delete. */
  | { kind: 'deleted'; version: number; routeId: string }
  /** Many changes at once (proxy.yml reconciliation): fetch a snapshot. */
  | { kind: 'reloaded'; version: number }
  /** The control plane's current version, published every HEARTBEAT_INTERVAL_MS. */
  | { kind: 'heartbeat'; version: number };

export type RouteChangeKind = RouteChangeMessage['kind'];

/** The whole configuration data planes serve, at one configuration version. */
export interface RouteSnapshot {
  version: number;
  /** ISO 8601. */
  createdAt: string;
  /** Enabled, not deleted, canonical (`source` set), ordered by createdAt. */
  routes: Route[];
  /** proxy.yml's and /api/upstreams' together (names unique), each with its `source`. */
  upstreams: UpstreamDefinition[];
  authentication?: SessionAuthenticationConfig;
  /**
   * The active API keys (not revoked, not expired) as digests; a create or revoke bumps `version`
   * and publishes `reloaded`. Absent from control planes that predate API keys.
   */
  apiKeys?: ApiKeyDigest[];
  /** apiKeySecretFingerprint(API_KEY_SECRET) of the control plane, when it has the secret. */
  apiKeySecretFingerprint?: string;
  /**
   * Breakers held OPEN until `until` (ISO 8601) by a runbook: a data plane that starts, or fetches
   * a snapshot, while a hold lasts holds the route's breaker too. Absent from older control planes.
   */
  breakerHolds?: BreakerHold[];
}

/** A route breaker held OPEN (no HALF_OPEN test) until `until`, ISO 8601. */
export interface BreakerHold {
  routeId: string;
  until: string;
}

export const ROUTE_CHANGES_CHANNEL = 'gateway:route-changes';

/** How often the control plane publishes a heartbeat. */
export const HEARTBEAT_INTERVAL_MS = 1000;
