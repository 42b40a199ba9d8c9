import type { TrafficCounts } from '@gateway/events';
import { LatencySketch, REQUEST_OUTCOMES } from '@gateway/events/data-plane';

/**
 * The counters of one route or upstream for the current telemetry window. Recording is counter
 * increments only; the latency sketch (7 kB) is allocated on the first request, so a route that
 * never gets traffic costs a few numbers.
 */
export class TrafficTally {
  requests = 0;
  status2xx = 0;
  status3xx = 0;
  status4xx = 0;
  status5xx = 0;
  readonly outcomes = new Float64Array(REQUEST_OUTCOMES.length);
  retries = 0;
  bytesIn = 0;
  bytesOut = 0;
  private latency: LatencySketch | undefined;

  /**
   * `outcome`: an index into REQUEST_OUTCOMES, or -1 when the request had none of them (a 413, a 404);
   * `latencyBucket`: latencyBucket(latencyMs), computed once for the route's and the upstream's tally.
   */
  record(status: number, outcome: number, retries: number, bytesIn: number, bytesOut: number, latencyMs: number, latencyBucket: number): void {
    this.requests += 1;
    if (status >= 500) this.status5xx += 1;
    else if (status >= 400) this.status4xx += 1;
    else if (status >= 300) this.status3xx += 1;
    else if (status >= 200) this.status2xx += 1;
    if (outcome >= 0) this.outcomes[outcome] += 1;
    this.retries += retries;
    this.bytesIn += bytesIn;
    this.bytesOut += bytesOut;
    (this.latency ??= new LatencySketch()).recordInBucket(latencyBucket, latencyMs);
  }

  /** The window's counts on the wire, then zero for the next window (the sketch is kept for reuse). */
  take(): TrafficCounts {
    const o = this.outcomes;
    const counts: TrafficCounts = {
      requests: this.requests,
      statusClasses: [this.status2xx, this.status3xx, this.status4xx, this.status5xx],
      outcomes: [o[0], o[1], o[2], o[3], o[4], o[5], o[6]],
      retries: this.retries,
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      latency: this.latency === undefined ? { count: 0, sumMs: 0, zero: 0, buckets: [] } : this.latency.toWire(),
    };
    this.requests = this.status2xx = this.status3xx = this.status4xx = this.status5xx = 0;
    this.retries = this.bytesIn = this.bytesOut = 0;
    o.fill(0);
    this.latency?.reset();
    return counts;
  }
}
