import type { UpstreamEndpoint } from './upstream-endpoint';

/**
 * What a request may be sent to: available endpoints the exchange has not tried yet, so a retry
 * goes to another target while there is one (Envoy's previous-hosts retry predicate).
 */
export interface Candidates {
  readonly now: number;
  /** Endpoints earlier attempts of this exchange went to; undefined on a first attempt. */
  readonly tried: readonly UpstreamEndpoint[] | undefined;
  /** false: every endpoint counts, whatever its health (the last resort, see UpstreamGroup.choose). */
  readonly healthOnly: boolean;
}

export function isCandidate(endpoint: UpstreamEndpoint, candidates: Candidates): boolean {
  if (candidates.healthOnly && !endpoint.isAvailable(candidates.now)) return false;
  return candidates.tried === undefined || !candidates.tried.includes(endpoint);
}

/** One balancing algorithm over an upstream's endpoints (one file each, as Envoy's load balancers). */
export interface Balancer {
  /** The endpoint for one request; undefined when no endpoint is a candidate. `hashKey` only for consistent-hash. */
  pick(candidates: Candidates, hashKey: string | undefined): UpstreamEndpoint | undefined;
}
