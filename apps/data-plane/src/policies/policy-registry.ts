import type { PolicyFactory } from '../engine/policy';
import { accessLogPolicy } from './access-log/access-log.policy';
import { authPolicy } from './auth/auth.policy';
import { bodySizeLimitPolicy } from './body-size-limit/body-size-limit.policy';
import { circuitBreakerPolicy } from './circuit-breaker/circuit-breaker.policy';
import { correlationIdPolicy } from './correlation-id/correlation-id.policy';
import { corsPolicy } from './cors/cors.policy';
import { healthCheckPolicy } from './health-check/health-check.policy';
import { rateLimitPolicy } from './rate-limit/rate-limit.policy';
import { cachePolicy } from './cache/cache.policy';
import { headersPolicy } from './headers/headers.policy';
import { ipRestrictionPolicy } from './ip-restriction/ip-restriction.policy';
import { requestMetricsPolicy } from './request-metrics/request-metrics.policy';
import { retryPolicy } from './retry/retry.policy';
import { telemetryPolicy } from './telemetry/telemetry.policy';
import { timeoutPolicy } from './timeout/timeout.policy';
import { tracingPolicy } from './tracing/tracing.policy';
import { unmatchedTracingPolicy } from './tracing/unmatched-tracing.policy';
import { transformPolicy } from './transform/transform.policy';
import { versionHeadersPolicy } from './version-headers/version-headers.policy';

/**
 * Every policy the data plane knows. Order within a phase comes from each factory's `order`; a new
 * concern is a new folder plus one line here.
 */
export const POLICY_FACTORIES: readonly PolicyFactory[] = [
  correlationIdPolicy,
  versionHeadersPolicy,
  requestMetricsPolicy,
  accessLogPolicy,
  bodySizeLimitPolicy,
  rateLimitPolicy,
  healthCheckPolicy,
  circuitBreakerPolicy,
  retryPolicy,
  authPolicy,
  cachePolicy,
  headersPolicy,
  transformPolicy,
  timeoutPolicy,
  telemetryPolicy,
  ipRestrictionPolicy,
  corsPolicy,
  tracingPolicy,
  unmatchedTracingPolicy,
];
