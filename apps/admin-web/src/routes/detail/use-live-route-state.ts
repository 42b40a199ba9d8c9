import { routeStates, useLiveTelemetry } from '../../monitoring/live-telemetry';

export interface LiveRouteState {
  breaker?: string;
  health?: string;
}

/**
 * The route's breaker state and health indicator from the app's one telemetry stream
 * (monitoring/live-telemetry.ts; spec 4.3: live values come from the stream, never from polling).
 */
export function useLiveRouteState(routeId: string): LiveRouteState {
  useLiveTelemetry();
  const state = routeStates.value.get(routeId);
  return { breaker: state?.breaker ?? undefined, health: state?.health ?? undefined };
}
