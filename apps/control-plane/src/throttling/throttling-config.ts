/** Decision 21's tiers. Every tier counts per client (its IP address) in a fixed window. */
export const THROTTLE_TIERS = ['general', 'admin', 'credentials'] as const;
export type ThrottleTier = (typeof THROTTLE_TIERS)[number];

export interface TierLimit {
  /** Requests allowed per window. */
  max: number;
  windowMs: number;
}

export type ThrottlingConfig = Record<ThrottleTier, TierLimit>;

/** Spec 8: 100/min on all /api/*, 60/min on admin resources, 5 per 15 min on the credential endpoints. */
export const DEFAULT_THROTTLING: ThrottlingConfig = {
  general: { max: 100, windowMs: 60_000 },
  admin: { max: 60, windowMs: 60_000 },
  credentials: { max: 5, windowMs: 15 * 60_000 },
};

/** API_RATE_LIMIT_<TIER>_MAX and API_RATE_LIMIT_<TIER>_WINDOW_SECONDS. */
export function throttlingVariables(tier: ThrottleTier): { max: string; window: string } {
  const name = `API_RATE_LIMIT_${tier.toUpperCase()}`;
  return { max: `${name}_MAX`, window: `${name}_WINDOW_SECONDS` };
}

const MAX_WINDOW_SECONDS = 24 * 60 * 60;

/** Reads the six variables; a bad value is reported by name, like every other variable. */
export function parseThrottlingConfig(env: NodeJS.ProcessEnv, problems: Array<{ variable: string; message: string }>): ThrottlingConfig {
  const config = structuredClone(DEFAULT_THROTTLING);
  for (const tier of THROTTLE_TIERS) {
    const names = throttlingVariables(tier);
    const max = positiveInteger(env[names.max], names.max, 1_000_000_000, problems);
    if (max !== undefined) config[tier].max = max;
    const window = positiveInteger(env[names.window], names.window, MAX_WINDOW_SECONDS, problems);
    if (window !== undefined) config[tier].windowMs = window * 1000;
  }
  return config;
}

function positiveInteger(raw: string | undefined, variable: string, upper: number, problems: Array<{ variable: string; message: string }>): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < 1 || value > upper) {
    problems.push({ variable, message: `must be an integer from 1 to ${upper}` });
    return undefined;
  }
  return value;
}
