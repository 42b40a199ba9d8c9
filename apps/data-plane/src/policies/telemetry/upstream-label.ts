import type { Route } from '@gateway/route-model';

/** The upstream a route's traffic is counted under: its proxy.yml upstream name, else its target's origin (never a path). */
export function upstreamLabel(route: Route): string {
  if (route.upstreamName !== undefined) return route.upstreamName;
  try {
    return new URL(route.upstream).origin;
  } catch {
    return route.upstream;
  }
}
