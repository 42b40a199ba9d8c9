import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/api-client';
import type { MonitoringSecond } from '../../api/api-types';

export type LiveRouteState = Omit<MonitoringSecond['routes'][number], 'routeId'>;

/**
 * The route's breaker state and health indicator as the telemetry stream reports them (spec 4.3:
 * live values come from the stream, never from polling). A second without the route (no traffic)
 * keeps the last known values.
 */
export function useLiveRouteState(routeId: string): LiveRouteState {
  const [state, setState] = useState<LiveRouteState>({});
  useEffect(() => {
    setState({});
    return api.monitoringStream((second) => {
      const entry = second.routes.find((route) => route.routeId === routeId);
      if (entry === undefined) return;
      setState((previous) => (previous.breaker === entry.breaker && previous.health === entry.health ? previous : { breaker: entry.breaker, health: entry.health }));
    });
  }, [routeId]);
  return state;
}
