import type { RequestOutcome } from '@gateway/events';
import { REQUEST_OUTCOMES } from '@gateway/events/data-plane';
import { GATEWAY_ERRORS, type GatewayErrorCode } from '../../engine/error-catalogue';
import type { Exchange } from '../../engine/exchange';

const INDEX = Object.fromEntries(REQUEST_OUTCOMES.map((outcome, i) => [outcome, i])) as Record<RequestOutcome, number>;

/**
 * The outcome each catalogued error stands for; the rest (400, 404, 413, 500...) are none of the
 * issue's outcomes. An unhealthy upstream is refused like an open breaker: without calling it.
 */
const OUTCOME_OF: Partial<Record<GatewayErrorCode, RequestOutcome>> = {
  RATE_LIMITED: 'rate_limited',
  CIRCUIT_OPEN: 'breaker_rejected',
  UPSTREAM_UNHEALTHY: 'breaker_rejected',
  UNAUTHORIZED: 'auth_refused',
  INVALID_CREDENTIALS: 'auth_refused',
  FORBIDDEN: 'auth_refused',
  TOO_MANY_FAILED_CREDENTIALS: 'auth_refused',
  AUTH_SERVICE_UNAVAILABLE: 'auth_refused',
  AUTH_OVERLOADED: 'auth_refused',
  AUTH_NOT_CONFIGURED: 'auth_refused',
  UPSTREAM_ERROR: 'upstream_error',
  RESPONSE_TRANSFORM_FAILED: 'upstream_error',
  UPSTREAM_TIMEOUT: 'timeout',
  UPSTREAM_CONNECT_TIMEOUT: 'timeout',
  REVALIDATION_FAILED: 'upstream_error',
};

/** Every code to an index, -1 for none: one property read per request. */
const OUTCOME_INDEX = Object.fromEntries(
  (Object.keys(GATEWAY_ERRORS) as GatewayErrorCode[]).map((code) => {
    const outcome = OUTCOME_OF[code];
    return [code, outcome === undefined ? -1 : INDEX[outcome]];
  }),
) as Record<GatewayErrorCode, number>;

export const PROXIED = INDEX.proxied;
const CACHE_HIT = INDEX.cache_hit;

/** The REQUEST_OUTCOMES index of a finished exchange, or -1 when it had none of them. */
export function outcomeIndex(exchange: Exchange): number {
  if (exchange.cacheHit) return CACHE_HIT;
  const code = exchange.errorCode;
  if (code !== undefined) return OUTCOME_INDEX[code];
  return exchange.upstreamResponse === undefined ? -1 : PROXIED;
}
