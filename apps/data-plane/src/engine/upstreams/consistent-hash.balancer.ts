import { isCandidate, type Balancer, type Candidates } from './balancer';
import { hashKey } from './key-hash';
import type { UpstreamEndpoint } from './upstream-endpoint';

/** Ring points of an endpoint of the smallest weight (Ketama places 160 per server). */
const POINTS_PER_MIN_WEIGHT = 160;
/** Upper bound of the ring (4 MiB of points and owners); larger rings are scaled down. */
const MAX_RING_POINTS = 1 << 19;

/**
 * Ring hash (Ketama, Envoy's RING_HASH): each endpoint owns points on a 32-bit ring, hashed from
 * its identity (origin and address) and the point's number, so an endpoint's points never depend
 * on the others. A key goes to the owner of the first point at or after its hash. Adding an
 * endpoint takes over only the keys that fall just before its own points, about 1/N of them
 * (measured in the e2e test and docs/upstreams.md); every other key stays where it was.
 *
 * Points are proportional to weight, counted from the smallest weight: joining endpoints of at
 * least that weight leave the existing points alone. An endpoint that is not a candidate (ejected,
 * unhealthy, already tried) passes its keys clockwise to the next owner that is.
 */
export class ConsistentHashBalancer implements Balancer {
  private readonly points: Uint32Array;
  private readonly owners: UpstreamEndpoint[];

  constructor(endpoints: readonly UpstreamEndpoint[]) {
    const minWeight = Math.min(...endpoints.map((e) => e.weight));
    const totalWeight = endpoints.reduce((sum, e) => sum + e.weight, 0);
    const scale = Math.min(POINTS_PER_MIN_WEIGHT / minWeight, MAX_RING_POINTS / Math.max(1, totalWeight));
    const ring: Array<{ hash: number; owner: UpstreamEndpoint }> = [];
    for (const endpoint of endpoints) {
      const count = Math.max(1, Math.round(endpoint.weight * scale));
      for (let i = 0; i < count; i += 1) ring.push({ hash: hashKey(`${endpoint.key}#${i}`), owner: endpoint });
    }
    // Ties (two points on one hash) are ordered by owner key so every process builds the same ring.
    ring.sort((a, b) => a.hash - b.hash || (a.owner.key < b.owner.key ? -1 : a.owner.key > b.owner.key ? 1 : 0));
    this.points = Uint32Array.from(ring, (p) => p.hash);
    this.owners = ring.map((p) => p.owner);
  }

  pick(candidates: Candidates, key: string | undefined): UpstreamEndpoint | undefined {
    const size = this.points.length;
    if (size === 0) return undefined;
    const start = this.firstPointAtOrAfter(hashKey(key ?? ''));
    for (let n = 0; n < size; n += 1) {
      const owner = this.owners[(start + n) % size] as UpstreamEndpoint;
      if (isCandidate(owner, candidates)) return owner;
    }
    return undefined;
  }

  private firstPointAtOrAfter(hash: number): number {
    let low = 0;
    let high = this.points.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.points[mid] as number) < hash) low = mid + 1;
      else high = mid;
    }
    return low === this.points.length ? 0 : low;
  }
}
