import type { UpstreamHealthSource } from '../engine/ports';
import type { RouteTable } from '../engine/route-table';

export type HealthStatus = 'UP' | 'DEGRADED' | 'DOWN';

export interface ReadinessResult {
  status: HealthStatus;
  checks: { config: HealthStatus; upstreams: HealthStatus };
}

/**
 * Decision 19: not ready (DOWN, 503) until a route configuration is loaded or when every upstream's
 * breaker is open; DEGRADED (still 200) when only some are open or unhealthy.
 */
export function readiness(table: RouteTable | undefined, health: UpstreamHealthSource): ReadinessResult {
  const config: HealthStatus = table === undefined ? 'DOWN' : 'UP';
  const names = health.upstreamNames();
  const breakers = health.breakers();
  const open = names.filter((name) => breakers[name]?.state === 'OPEN');
  const unhealthy = new Set([...open, ...health.unhealthyUpstreams()]);
  let upstreams: HealthStatus = 'UP';
  if (names.length > 0 && open.length === names.length) upstreams = 'DOWN';
  else if (unhealthy.size > 0) upstreams = 'DEGRADED';
  const status: HealthStatus = config === 'DOWN' || upstreams === 'DOWN' ? 'DOWN' : upstreams;
  return { status, checks: { config, upstreams } };
}
