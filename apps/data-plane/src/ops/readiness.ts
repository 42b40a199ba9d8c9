import type { UpstreamHealthSource } from '../engine/ports';
import type { RouteTable } from '../engine/route-table';

export type HealthStatus = 'UP' | 'DEGRADED' | 'DOWN';

export interface ReadinessResult {
  status: HealthStatus;
  /** config and upstreams always; further checks (database, redis) when the caller adds them. */
  checks: { config: HealthStatus; upstreams: HealthStatus } & Record<string, HealthStatus>;
}

/**
 * Decision 19: not ready (DOWN, 503) until a route configuration is loaded or when every upstream's
 * breaker is open; DEGRADED (still 200) when only some are open or unhealthy. "Some" counts every
 * breaker and every check, a route's own (`route:<id>`) as well as a `proxy.yml` upstream's: a
 * route whose own breaker is OPEN answers 503 like one behind an open upstream breaker. Only
 * upstream breakers decide DOWN (docs/resilience.md). Extra checks (the one-process mode's
 * database and Redis) are listed beside them; any DOWN makes the whole DOWN.
 */
export function readiness(table: RouteTable | undefined, health: UpstreamHealthSource, extra: Record<string, HealthStatus> = {}): ReadinessResult {
  const config: HealthStatus = table === undefined ? 'DOWN' : 'UP';
  const names = health.upstreamNames();
  const breakers = health.breakers();
  const open = Object.keys(breakers).filter((name) => breakers[name]?.state === 'OPEN');
  const openUpstreams = names.filter((name) => breakers[name]?.state === 'OPEN');
  const unhealthy = new Set([...open, ...health.unhealthyUpstreams()]);
  let upstreams: HealthStatus = 'UP';
  if (names.length > 0 && openUpstreams.length === names.length) upstreams = 'DOWN';
  else if (unhealthy.size > 0) upstreams = 'DEGRADED';
  const checks: ReadinessResult['checks'] = { config, upstreams };
  let extraDown = false;
  for (const [name, value] of Object.entries(extra)) {
    if (name === 'config' || name === 'upstreams') continue; // the gateway's own checks are not overridden
    checks[name] = value;
    if (value === 'DOWN') extraDown = true;
  }
  const status: HealthStatus = config === 'DOWN' || upstreams === 'DOWN' || extraDown ? 'DOWN' : upstreams;
  return { status, checks };
}
