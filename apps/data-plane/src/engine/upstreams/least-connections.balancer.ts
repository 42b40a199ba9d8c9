import { isCandidate, type Balancer, type Candidates } from './balancer';
import type { UpstreamEndpoint } from './upstream-endpoint';

/**
 * The candidate with the fewest requests in flight for its weight ((inFlight + 1) / weight, as
 * nginx's least_conn compares them). Ties go round-robin, starting one endpoint further each
 * pick, so an idle upstream still spreads its requests.
 */
export class LeastConnectionsBalancer implements Balancer {
  private start = 0;

  constructor(private readonly endpoints: readonly UpstreamEndpoint[]) {}

  pick(candidates: Candidates): UpstreamEndpoint | undefined {
    const count = this.endpoints.length;
    if (count === 0) return undefined;
    this.start = (this.start + 1) % count;
    let best: UpstreamEndpoint | undefined;
    let bestLoad = Infinity;
    for (let n = 0; n < count; n += 1) {
      const endpoint = this.endpoints[(this.start + n) % count] as UpstreamEndpoint;
      if (!isCandidate(endpoint, candidates)) continue;
      const load = (endpoint.inFlight + 1) / endpoint.weight;
      if (load < bestLoad) {
        best = endpoint;
        bestLoad = load;
      }
    }
    return best;
  }
}
