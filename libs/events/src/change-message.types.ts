import type { Route, SessionAuthenticationConfig, UpstreamDefinition } from '@gateway/route-model';

/**
 * What the control plane tells data planes when the route set changes. Messages are hints:
 * pub/sub can lose them, so every message carries the configuration version it produced and a
 * data plane that sees a gap fetches a full snapshot instead of trusting the stream.
 * - `upserted`: created, changed, toggled or restored; served only when `route.enabled`.
 * - `deleted`: soft or permanent delete.
 * - `reloaded`: many changes at once (proxy.yml reconciliation); fetch a snapshot.
 * - `heartbeat`: every 1000 ms with the current version; silence for 3 s means "fetch a snapshot".
 */
export type RouteChangeMessage =
  | { kind: 'upserted'; version: number; route: Route }
  | { kind: 'deleted'; version: number; routeId: string }
  | { kind: 'reloaded'; version: number }
  | { kind: 'heartbeat'; version: number };

/** The whole route set at one configuration version. */
export interface RouteSnapshot {
  version: number;
  /** ISO 8601. */
  createdAt: string;
  /** Enabled, not deleted, canonical (`source` set), ordered by createdAt. */
  routes: Route[];
  /** proxy.yml's upstreams (names, upstream-level breakers and health checks). */
  upstreams: UpstreamDefinition[];
  authentication?: SessionAuthenticationConfig;
}

export const ROUTE_CHANGES_CHANNEL = 'gateway:route-changes';

/** Commands to every data plane (admin actions that act on runtime state, not on config). */
export type DataPlaneCommand =
  | { kind: 'circuit-breaker'; routeId: string; action: 'trip' | 'reset' }
  | { kind: 'cache-purge'; routeId: string };

export const COMMANDS_CHANNEL = 'gateway:commands';
