/** Svix's schedule after the first, immediate attempt: 8 attempts over about 27.6 hours. */
export const DEFAULT_RETRY_DELAYS = '5s,5m,30m,2h,5h,10h,10h';

/**
 * The webhook settings of the control plane's environment (docs/webhooks.md). Where webhooks may go
 * is the outbound-target rule's, with the one OUTBOUND_ALLOW_CIDRS (`outboundAllowCidrs`).
 */
export interface WebhooksConfig {
  /** WEBHOOK_RETRY_DELAYS: the wait before attempt 2, 3, ...; its length + 1 is the most attempts. */
  retryDelaysMs: readonly number[];
  /** WEBHOOK_TIMEOUT: one attempt, connect to last byte read. */
  timeoutMs: number;
  /** WEBHOOK_DISABLE_AFTER: an endpoint failing without a success for this long is disabled. */
  disableAfterMs: number;
}

type Problems = Array<{ variable: string; message: string }>;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d{1,9})(ms|s|m|h|d)$/;

function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  return match === null ? undefined : Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}

/** `ms` in the largest unit that divides it (`1h`, `300ms`), as the variables are written. */
function formatDuration(ms: number): string {
  const unit = (['d', 'h', 'm', 's'] as const).find((name) => ms % (UNIT_MS[name] as number) === 0);
  return unit === undefined ? `${ms}ms` : `${ms / (UNIT_MS[unit] as number)}${unit}`;
}

export function durationVariable(env: NodeJS.ProcessEnv, variable: string, fallback: string, bounds: { min: number; max: number }, problems: Problems): number {
  const raw = env[variable]?.trim() || fallback;
  const value = parseDuration(raw);
  if (value === undefined || value < bounds.min || value > bounds.max) {
    problems.push({ variable, message: `must be a duration such as 15s, 10m or 5d, from ${formatDuration(bounds.min)} to ${formatDuration(bounds.max)}` });
    return parseDuration(fallback) as number;
  }
  return value;
}

export function parseWebhooksConfig(env: NodeJS.ProcessEnv, problems: Problems): WebhooksConfig {
  const delaysRaw = env['WEBHOOK_RETRY_DELAYS']?.trim() || DEFAULT_RETRY_DELAYS;
  const delays = delaysRaw.split(',').map(parseDuration);
  let retryDelaysMs: number[];
  if (delays.length > 20 || delays.some((d) => d === undefined || d < 1 || d > 7 * 86_400_000)) {
    problems.push({ variable: 'WEBHOOK_RETRY_DELAYS', message: 'must be up to 20 comma-separated durations (e.g. 5s,5m,30m), each between 1 ms and 7d' });
    retryDelaysMs = DEFAULT_RETRY_DELAYS.split(',').map((d) => parseDuration(d) as number);
  } else {
    retryDelaysMs = delays as number[];
  }
  return {
    retryDelaysMs,
    timeoutMs: durationVariable(env, 'WEBHOOK_TIMEOUT', '15s', { min: 100, max: 120_000 }, problems),
    disableAfterMs: durationVariable(env, 'WEBHOOK_DISABLE_AFTER', '5d', { min: 1000, max: 90 * 86_400_000 }, problems),
  };
}

/**
 * When attempt `attempt + 1` is due after attempt `attempt` (1-based) failed: the schedule's delay
 * with +/-10% jitter so endpoints recovering together are not hit in lockstep, or a longer
 * Retry-After from the receiver. Undefined when the schedule is exhausted.
 */
export function nextRetryDelayMs(config: Pick<WebhooksConfig, 'retryDelaysMs'>, attempt: number, retryAfterMs: number | undefined, random: () => number = Math.random): number | undefined {
  const base = config.retryDelaysMs[attempt - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (0.9 + 0.2 * random()));
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, 86_400_000));
}
