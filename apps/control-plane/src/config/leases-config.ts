import { durationVariable } from './webhooks-config';

/** Run-once periodic jobs across control-plane instances (docs/control-plane.md "Leases"). */
export interface LeasesConfig {
  /** LEASE_TTL: how long a job's lease outlives a holder that died: the pause before another instance takes over. */
  ttlMs: number;
  /** ROUTE_PURGE_INTERVAL: how often the lease holder purges routes soft-deleted more than 30 days ago. */
  routePurgeIntervalMs: number;
}

type Problems = Array<{ variable: string; message: string }>;

export function parseLeasesConfig(env: NodeJS.ProcessEnv, problems: Problems): LeasesConfig {
  return {
    ttlMs: durationVariable(env, 'LEASE_TTL', '30s', { min: 300, max: 3_600_000 }, problems),
    routePurgeIntervalMs: durationVariable(env, 'ROUTE_PURGE_INTERVAL', '1h', { min: 100, max: 7 * 86_400_000 }, problems),
  };
}
