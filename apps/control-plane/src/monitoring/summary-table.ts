import type { BreakerState, HealthIndicator, TrafficSummary } from '@gateway/events';

/*
 * Rows of merged traffic packed into typed arrays: the in-memory series keep 15 minutes of seconds
 * and 24 hours of minutes for every route, and objects per route and interval would cost three
 * times as much (docs/telemetry.md states and measures the bound).
 */

/** requests, the 4 status classes, the 7 outcomes, retries. */
const COUNTS = 13;
/** bytesIn, bytesOut, meanMs. */
const AMOUNTS = 3;
/** p50, p95, p99. */
const QUANTILES = 3;
const BREAKER_STATES: readonly BreakerState[] = ['CLOSED', 'HALF_OPEN', 'OPEN'];
const HEALTH_INDICATORS: readonly HealthIndicator[] = ['Healthy', 'Unknown', 'Degraded', 'Unhealthy'];

export interface SummaryRow extends TrafficSummary {
  breaker?: BreakerState;
  health?: HealthIndicator;
}

export class SummaryTable {
  private readonly counts: Uint32Array;
  private readonly amounts: Float64Array;
  private readonly quantiles: Float32Array;
  /** breaker, health: index + 1, 0 when absent. */
  private readonly states: Uint8Array;

  /** `keys` sorted, so `find` is a binary search and no index map is kept. */
  private constructor(readonly keys: readonly string[], rows: readonly SummaryRow[]) {
    const n = keys.length;
    this.counts = new Uint32Array(n * COUNTS);
    this.amounts = new Float64Array(n * AMOUNTS);
    this.quantiles = new Float32Array(n * QUANTILES);
    this.states = new Uint8Array(n * 2);
    rows.forEach((row, i) => {
      const c = i * COUNTS;
      this.counts[c] = row.requests;
      this.counts.set(row.statusClasses, c + 1);
      this.counts.set(row.outcomes, c + 5);
      this.counts[c + 12] = row.retries;
      this.amounts.set([row.bytesIn, row.bytesOut, row.latency.meanMs], i * AMOUNTS);
      this.quantiles.set([row.latency.p50, row.latency.p95, row.latency.p99], i * QUANTILES);
      this.states[i * 2] = row.breaker === undefined ? 0 : BREAKER_STATES.indexOf(row.breaker) + 1;
      this.states[i * 2 + 1] = row.health === undefined ? 0 : HEALTH_INDICATORS.indexOf(row.health) + 1;
    });
  }

  static from<T extends SummaryRow>(entries: readonly T[], keyOf: (entry: T) => string): SummaryTable {
    const sorted = [...entries].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
    return new SummaryTable(sorted.map(keyOf), sorted);
  }

  get size(): number {
    return this.keys.length;
  }

  find(key: string): SummaryRow | undefined {
    let low = 0;
    let high = this.keys.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const k = this.keys[mid];
      if (k === key) return this.row(mid);
      if (k < key) low = mid + 1;
      else high = mid - 1;
    }
    return undefined;
  }

  row(i: number): SummaryRow {
    const c = i * COUNTS;
    const a = i * AMOUNTS;
    const q = i * QUANTILES;
    const counts = this.counts;
    const row: SummaryRow = {
      requests: counts[c],
      statusClasses: [counts[c + 1], counts[c + 2], counts[c + 3], counts[c + 4]],
      outcomes: [counts[c + 5], counts[c + 6], counts[c + 7], counts[c + 8], counts[c + 9], counts[c + 10], counts[c + 11]],
      retries: counts[c + 12],
      bytesIn: this.amounts[a],
      bytesOut: this.amounts[a + 1],
      latency: { p50: this.quantiles[q], p95: this.quantiles[q + 1], p99: this.quantiles[q + 2], meanMs: this.amounts[a + 2] },
    };
    const breaker = this.states[i * 2];
    const health = this.states[i * 2 + 1];
    if (breaker > 0) row.breaker = BREAKER_STATES[breaker - 1];
    if (health > 0) row.health = HEALTH_INDICATORS[health - 1];
    return row;
  }

  /** Bytes held by the typed arrays (what the memory bound counts, with the key references). */
  get byteLength(): number {
    return this.counts.byteLength + this.amounts.byteLength + this.quantiles.byteLength + this.states.byteLength + this.keys.length * 8;
  }
}
