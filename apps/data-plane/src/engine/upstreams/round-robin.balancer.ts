import { isCandidate, type Balancer, type Candidates } from './balancer';
import type { UpstreamEndpoint } from './upstream-endpoint';

/**
 * nginx's smooth weighted round-robin: every pick adds each candidate's weight to its running
 * weight, takes the largest and subtracts the total from it. Weights 5:1:1 give a a b a c a a
 * rather than a a a a a b c, and over any window of sum-of-weights picks each endpoint gets
 * exactly its share. Endpoints that are not candidates are skipped without disturbing the others.
 */
export class RoundRobinBalancer implements Balancer {
  constructor(private readonly endpoints: readonly UpstreamEndpoint[]) {}

  pick(candidates: Candidates): UpstreamEndpoint | undefined {
    let total = 0;
    let best: UpstreamEndpoint | undefined;
    for (let i = 0; i < this.endpoints.length; i += 1) {
      const endpoint = this.endpoints[i] as UpstreamEndpoint;
      if (!isCandidate(endpoint, candidates)) continue;
      endpoint.currentWeight += endpoint.weight;
      total += endpoint.weight;
      if (best === undefined || endpoint.currentWeight > best.currentWeight) best = endpoint;
    }
    if (best !== undefined) best.currentWeight -= total;
    return best;
  }
}
