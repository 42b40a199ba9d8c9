import {
  mergeLatencyWires,
  mergeTopKeys,
  wireQuantiles,
  type BreakerState,
  type HealthIndicator,
  type LatencySketchWire,
  type TopKeyWire,
  type TrafficCounts,
  type TrafficSummary,
} from '@gateway/events';

const EMPTY_LATENCY: LatencySketchWire = { count: 0, sumMs: 0, zero: 0, buckets: [] };
const QUANTILES = [0.5, 0.95, 0.99] as const;
/** Top keys a merged route keeps (as many as one data plane sends). */
const MERGED_TOP_KEYS = 10;

/** Worst first wins: a breaker OPEN on one data plane is OPEN for the cluster. */
const BREAKER_SEVERITY: Record<BreakerState, number> = { CLOSED: 0, HALF_OPEN: 1, OPEN: 2 };
const HEALTH_SEVERITY: Record<HealthIndicator, number> = { Healthy: 0, Unknown: 1, Degraded: 2, Unhealthy: 3 };

/** Something that carries counts and, maybe, resilience state (a route or upstream window, or a merged sum). */
export interface TrafficEntry extends TrafficCounts {
  topKeys?: TopKeyWire[];
  breaker?: BreakerState;
  health?: HealthIndicator;
}

/** Counts of one route, upstream or the cluster summed over data planes (a second) or seconds (a minute). */
export class TrafficSum implements TrafficEntry {
  requests = 0;
  statusClasses: TrafficCounts['statusClasses'] = [0, 0, 0, 0];
  outcomes: TrafficCounts['outcomes'] = [0, 0, 0, 0, 0, 0, 0];
  retries = 0;
  bytesIn = 0;
  bytesOut = 0;
  latency = EMPTY_LATENCY;
  breaker: BreakerState | undefined = undefined;
  health: HealthIndicator | undefined = undefined;
  private keyLists: TopKeyWire[][] | undefined;

  add(entry: TrafficEntry): void {
    this.requests += entry.requests;
    for (let i = 0; i < 4; i += 1) this.statusClasses[i] += entry.statusClasses[i];
    for (let i = 0; i < 7; i += 1) this.outcomes[i] += entry.outcomes[i];
    this.retries += entry.retries;
    this.bytesIn += entry.bytesIn;
    this.bytesOut += entry.bytesOut;
    if (entry.latency.count > 0) this.latency = this.latency.count === 0 ? entry.latency : mergeLatencyWires(this.latency, entry.latency);
    if (entry.breaker !== undefined && (this.breaker === undefined || BREAKER_SEVERITY[entry.breaker] > BREAKER_SEVERITY[this.breaker])) this.breaker = entry.breaker;
    if (entry.health !== undefined && (this.health === undefined || HEALTH_SEVERITY[entry.health] > HEALTH_SEVERITY[this.health])) this.health = entry.health;
    if (entry.topKeys !== undefined) (this.keyLists ??= []).push(entry.topKeys);
  }

  /** The merged heaviest keys; undefined when no data plane sent any. */
  get topKeys(): TopKeyWire[] | undefined {
    if (this.keyLists === undefined) return undefined;
    if (this.keyLists.length > 1) this.keyLists = [mergeTopKeys(this.keyLists, MERGED_TOP_KEYS)];
    return this.keyLists[0];
  }

  summary(): TrafficSummary {
    const [p50, p95, p99] = this.latency.count === 0 ? [0, 0, 0] : wireQuantiles(this.latency, QUANTILES);
    return {
      requests: this.requests,
      statusClasses: [...this.statusClasses],
      outcomes: [...this.outcomes],
      retries: this.retries,
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      latency: { p50, p95, p99, meanMs: this.latency.count === 0 ? 0 : this.latency.sumMs / this.latency.count },
    };
  }
}
