import type { ClusterSecond } from '@gateway/events';
import { SummaryTable } from './summary-table';

/** One sealed interval as the ring keeps it: its rows packed (SummaryTable), no top keys. */
export class CompactInterval {
  readonly total: SummaryTable;
  readonly routes: SummaryTable;
  readonly upstreams: SummaryTable;
  readonly start: number;
  readonly durationMs: number;
  readonly reporting: number;

  constructor(interval: ClusterSecond) {
    this.start = interval.start;
    this.durationMs = interval.durationMs;
    this.reporting = interval.reporting;
    this.total = SummaryTable.from([interval.total], () => '');
    this.routes = SummaryTable.from(interval.routes, (r) => r.routeId);
    this.upstreams = SummaryTable.from(interval.upstreams, (u) => u.upstream);
  }

  expand(): ClusterSecond {
    return {
      start: this.start,
      durationMs: this.durationMs,
      reporting: this.reporting,
      total: this.total.row(0),
      routes: this.routes.keys.map((routeId, i) => ({ routeId, ...this.routes.row(i) })),
      upstreams: this.upstreams.keys.map((upstream, i) => ({ upstream, ...this.upstreams.row(i) })),
    };
  }
}

/**
 * The last `capacity` intervals of one length, by start: a fixed array indexed by start / length
 * modulo capacity, so memory is bounded by the capacity and old intervals are overwritten.
 */
export class IntervalRing {
  private readonly slots: (CompactInterval | undefined)[];

  constructor(
    readonly durationMs: number,
    readonly capacity: number,
  ) {
    this.slots = new Array<CompactInterval | undefined>(capacity).fill(undefined);
  }

  put(interval: CompactInterval): void {
    this.slots[this.indexOf(interval.start)] = interval;
  }

  get(start: number): CompactInterval | undefined {
    const slot = this.slots[this.indexOf(start)];
    return slot !== undefined && slot.start === start ? slot : undefined;
  }

  /** Kept intervals with start in [from, to), oldest first. */
  range(from: number, to: number): CompactInterval[] {
    const out: CompactInterval[] = [];
    const step = this.durationMs;
    // Older than the ring's reach is gone (overwritten): start there rather than walk empty slots.
    for (let start = Math.ceil(Math.max(from, to - this.capacity * step) / step) * step; start < to; start += step) {
      const slot = this.get(start);
      if (slot !== undefined) out.push(slot);
    }
    return out;
  }

  /** Bytes held by the kept intervals' tables. */
  byteLength(): number {
    let bytes = 0;
    for (const slot of this.slots) if (slot !== undefined) bytes += slot.total.byteLength + slot.routes.byteLength + slot.upstreams.byteLength;
    return bytes;
  }

  private indexOf(start: number): number {
    return Math.floor(start / this.durationMs) % this.capacity;
  }
}
