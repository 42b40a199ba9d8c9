import type { BreakerState, HealthIndicator } from '../api/api-types';

const BREAKER_TEXT: Record<BreakerState, string> = { CLOSED: 'Closed', OPEN: 'Open', HALF_OPEN: 'Half-open' };

/** Spec 2.4's indicator; a route no data plane reported on is Unknown. */
export function HealthBadge({ health }: { health: HealthIndicator | null | undefined }) {
  const value = health ?? 'Unknown';
  return <span class={`badge badge-${value}`}>{value}</span>;
}

/** A breaker's state; a route without a breaker (or without traffic to report it) shows a dash. */
export function BreakerBadge({ breaker }: { breaker: BreakerState | null | undefined }) {
  if (breaker === null || breaker === undefined) return <span class="badge badge-Unknown">—</span>;
  return <span class={`badge badge-${breaker}`}>{BREAKER_TEXT[breaker]}</span>;
}
