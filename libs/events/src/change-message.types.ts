import type { Route } from '@gateway/route-model';

/**
 * What the control plane tells data planes when the route set changes. Messages are hints:
 * pub/sub can lose them, so every message carries the configuration version it produced and a
 * data plane that sees a gap fetches a full snapshot instead of trusting the stream.
 */
export type RouteChangeMessage =
  | { kind: 'upserted'; version: number; route: Route }
  | { kind: 'deleted'; version: number; routeId: string }
  | { kind: 'reloaded'; version: number };

/** The whole route set at one configuration version. */
export interface RouteSnapshot {
  version: number;
  routes: Route[];
  /** ISO 8601. */
  createdAt: string;
}

export const ROUTE_CHANGES_CHANNEL = 'gateway:route-changes';
