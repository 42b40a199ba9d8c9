import {
  mergeLatencyWires,
  parseTelemetryWindow,
  TELEMETRY_LATE_WINDOW_MS,
  TELEMETRY_STALE_AFTER_WINDOWS,
  TelemetryWindowError,
  type ClusterSecond,
  type LatencySketchWire,
  type ProcessGauges,
  type TelemetryStream,
} from '@gateway/events';
import { CompactInterval, IntervalRing } from './interval-ring';
import { TrafficAggregate } from './traffic-aggregate';

const SECOND_MS = 1000;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** 15 minutes at 1 s, 24 hours at 1 min (issue 12). */
const SECONDS_KEPT = 900;
const MINUTES_KEPT = 1440;
/** Sealed minutes whose latency sketches are kept, for the quantiles of a summary window (at most 15 min). */
const SKETCH_MINUTES_KEPT = 15;
/** A flood of made-up instance ids must not grow memory. */
const MAX_DATA_PLANES = 1000;

export type IngestResult = 'merged' | 'duplicate' | 'late' | 'invalid';

/** The rolled-up resolutions that are persisted: minutes (kept 24 h) and hours (kept 8 days, the detectors' baselines). */
export type RollupResolution = 'minute' | 'hour';

/** A data plane as its windows describe it (GET /api/monitoring/data-planes). */
export interface DataPlaneReport {
  instanceId: string;
  address: string;
  version: string;
  configRevision: number;
  /** ISO 8601 of the last window received. */
  lastReport: string;
  /** `stale` after TELEMETRY_STALE_AFTER_WINDOWS windows without a report. */
  status: 'live' | 'stale';
  droppedWindows: number;
  process: ProcessGauges;
}

/** Windows the series did not merge, by reason, since start. */
export interface IngestDrops {
  duplicate: number;
  late: number;
  invalid: number;
}

/**
 * The cluster's telemetry as this control-plane instance sees it: every data plane's windows merged
 * by second, sealed TELEMETRY_LATE_WINDOW_MS after the second ends, kept 15 minutes at 1 s and rolled
 * up into 24 hours at 1 min. A window is identified by (instance id, start): a second copy is
 * ignored; one that arrives after its second was sealed is dropped and counted. Time comes from
 * `now`; the caller calls `tick()` (once a second) to seal.
 */
export class ClusterSeries implements TelemetryStream {
  private readonly pending = new Map<number, { aggregate: TrafficAggregate; instances: Set<string> }>();
  /** Seconds before this are sealed; a window for them is late. */
  private sealedBefore = Number.NEGATIVE_INFINITY;
  private minute: TrafficAggregate | undefined;
  private hour: TrafficAggregate | undefined;
  private readonly rollupListeners = new Set<(resolution: RollupResolution, interval: ClusterSecond) => void>();
  private readonly secondRing = new IntervalRing(SECOND_MS, SECONDS_KEPT);
  private readonly minuteRing = new IntervalRing(MINUTE_MS, MINUTES_KEPT);
  private readonly listeners = new Set<(second: ClusterSecond) => void>();
  private readonly planes = new Map<string, { report: Omit<DataPlaneReport, 'status' | 'lastReport'>; receivedAt: number }>();
  private readonly drops: IngestDrops = { duplicate: 0, late: 0, invalid: 0 };
  private readonly minuteSketches: { start: number; total: LatencySketchWire; routes: Map<string, LatencySketchWire> }[] = [];
  lastInvalid: string | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Merges one window received from the bus (unchecked input). */
  ingest(raw: unknown): IngestResult {
    let window;
    try {
      window = parseTelemetryWindow(raw);
    } catch (error) {
      if (!(error instanceof TelemetryWindowError)) throw error;
      this.drops.invalid += 1;
      this.lastInvalid = error.message;
      return 'invalid';
    }
    const now = this.now();
    if (window.durationMs !== SECOND_MS) {
      this.drops.invalid += 1;
      this.lastInvalid = `telemetry window: durationMs must be ${SECOND_MS}`;
      return 'invalid';
    }
    this.remember(window, now);
    if (window.start < this.sealedBefore || now - (window.start + SECOND_MS) > TELEMETRY_LATE_WINDOW_MS) {
      this.drops.late += 1;
      return 'late';
    }
    let second = this.pending.get(window.start);
    if (second === undefined) {
      second = { aggregate: new TrafficAggregate(window.start, SECOND_MS), instances: new Set() };
      this.pending.set(window.start, second);
    }
    if (second.instances.has(window.instanceId)) {
      this.drops.duplicate += 1;
      return 'duplicate';
    }
    second.instances.add(window.instanceId);
    second.aggregate.addWindow(window);
    return 'merged';
  }

  /** Seals every second no window can change any more, oldest first, and rolls finished minutes up. */
  tick(): void {
    const now = this.now();
    const horizon = now - TELEMETRY_LATE_WINDOW_MS;
    const due = [...this.pending.keys()].filter((start) => start + SECOND_MS <= horizon).sort((a, b) => a - b);
    for (const start of due) {
      const { aggregate } = this.pending.get(start)!;
      this.pending.delete(start);
      this.rollMinute(start);
      this.minute!.addAggregate(aggregate);
      const second = aggregate.toClusterSecond();
      this.secondRing.put(new CompactInterval(second));
      for (const listener of this.listeners) listener(second);
    }
    this.sealedBefore = Math.max(this.sealedBefore, Math.floor(horizon / SECOND_MS) * SECOND_MS);
    // A minute is final once its last second is sealed, even when no later traffic comes.
    if (this.minute !== undefined && this.minute.start + MINUTE_MS <= this.sealedBefore) this.sealMinute();
  }

  onSecond(listener: (second: ClusterSecond) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` with each minute and hour once it is sealed (the archive persists them). */
  onRollup(listener: (resolution: RollupResolution, interval: ClusterSecond) => void): () => void {
    this.rollupListeners.add(listener);
    return () => this.rollupListeners.delete(listener);
  }

  /** Puts persisted minutes back (a restarted or new instance answers the last 24 hours at once). */
  restoreMinutes(minutes: readonly ClusterSecond[]): void {
    for (const minute of minutes) if (minute.durationMs === MINUTE_MS && this.minuteRing.get(minute.start) === undefined) this.minuteRing.put(new CompactInterval(minute));
  }

  seconds(fromMs: number, toMs: number): ClusterSecond[] {
    return this.secondRing.range(fromMs, toMs).map((s) => s.expand());
  }

  /** Sealed minutes with start in [fromMs, toMs), oldest first, from the last 24 hours. */
  minutes(fromMs: number, toMs: number): ClusterSecond[] {
    return this.minuteRing.range(fromMs, toMs).map((m) => m.expand());
  }

  dataPlanes(): DataPlaneReport[] {
    const staleBefore = this.now() - TELEMETRY_STALE_AFTER_WINDOWS * SECOND_MS;
    return [...this.planes.values()]
      .map(({ report, receivedAt }) => ({ ...report, lastReport: new Date(receivedAt).toISOString(), status: receivedAt < staleBefore ? ('stale' as const) : ('live' as const) }))
      .sort((a, b) => (a.instanceId < b.instanceId ? -1 : 1));
  }

  /**
   * Whether second `start` is complete as far as can be known: sealed, or reported by every live
   * data plane (each sends a window every second, with traffic or not). A data plane whose window
   * got lost holds a second back until it turns stale or the second is sealed, at most 5 s.
   */
  settled(start: number): boolean {
    if (start < this.sealedBefore) return true;
    const reported = this.pending.get(start)?.instances;
    const staleBefore = this.now() - TELEMETRY_STALE_AFTER_WINDOWS * SECOND_MS;
    for (const [id, plane] of this.planes) if (plane.receivedAt >= staleBefore && reported?.has(id) !== true) return false;
    return true;
  }

  /** Start of the oldest second that is not sealed: sealed data covers everything before it. */
  get sealedUntil(): number {
    return this.sealedBefore;
  }

  /**
   * Latency sketches merged per route and in total over the minutes that overlap [fromMs, now):
   * sealed minutes of the last 15, the open minute and the open seconds. Minute-aligned, so up to a
   * minute wider than asked.
   */
  latencySince(fromMs: number): { total: LatencySketchWire | undefined; routes: Map<string, LatencySketchWire> } {
    const routes = new Map<string, LatencySketchWire>();
    let total: LatencySketchWire | undefined;
    const add = (start: number, minuteTotal: LatencySketchWire, byRoute: Iterable<[string, LatencySketchWire]>): void => {
      if (start + MINUTE_MS <= fromMs) return;
      total = total === undefined ? minuteTotal : mergeLatencyWires(total, minuteTotal);
      for (const [id, wire] of byRoute) {
        const seen = routes.get(id);
        routes.set(id, seen === undefined ? wire : mergeLatencyWires(seen, wire));
      }
    };
    for (const minute of this.minuteSketches) add(minute.start, minute.total, minute.routes);
    for (const open of [this.minute, ...[...this.pending.values()].map((p) => p.aggregate)]) {
      if (open !== undefined) add(open.start, open.total.latency, [...open.routes].map(([id, sum]) => [id, sum.latency] as [string, LatencySketchWire]));
    }
    return { total, routes };
  }

  /** Seconds still open (a late window may still change them), oldest first: what live views add to the sealed series. */
  openSeconds(): ClusterSecond[] {
    return [...this.pending.values()].sort((a, b) => a.aggregate.start - b.aggregate.start).map((p) => p.aggregate.toClusterSecond());
  }

  dropped(): IngestDrops {
    return { ...this.drops };
  }

  /** Bytes held by the sealed series (the bound docs/telemetry.md states). */
  seriesBytes(): number {
    return this.secondRing.byteLength() + this.minuteRing.byteLength();
  }

  private remember(window: { instanceId: string; address: string; version: string; configRevision: number; droppedWindows: number; process: ProcessGauges }, now: number): void {
    if (!this.planes.has(window.instanceId) && this.planes.size >= MAX_DATA_PLANES) {
      // Forget the longest silent one rather than refuse a new data plane.
      let oldest: string | undefined;
      let oldestAt = Number.POSITIVE_INFINITY;
      for (const [id, plane] of this.planes) if (plane.receivedAt < oldestAt) [oldest, oldestAt] = [id, plane.receivedAt];
      if (oldest !== undefined) this.planes.delete(oldest);
    }
    const { instanceId, address, version, configRevision, droppedWindows, process } = window;
    this.planes.set(instanceId, { report: { instanceId, address, version, configRevision, droppedWindows, process }, receivedAt: now });
  }

  private rollMinute(secondStart: number): void {
    const minuteStart = Math.floor(secondStart / MINUTE_MS) * MINUTE_MS;
    if (this.minute !== undefined && this.minute.start !== minuteStart) this.sealMinute();
    this.minute ??= new TrafficAggregate(minuteStart, MINUTE_MS);
  }

  private sealMinute(): void {
    const minute = this.minute;
    if (minute === undefined) return;
    const hourStart = Math.floor(minute.start / HOUR_MS) * HOUR_MS;
    if (this.hour !== undefined && this.hour.start !== hourStart) this.sealHour();
    (this.hour ??= new TrafficAggregate(hourStart, HOUR_MS)).addAggregate(minute);
    const sealed = minute.toClusterSecond();
    this.minuteRing.put(new CompactInterval(sealed));
    for (const listener of this.rollupListeners) listener('minute', sealed);
    this.minuteSketches.push({ start: minute.start, total: minute.total.latency, routes: new Map([...minute.routes].map(([id, sum]) => [id, sum.latency])) });
    if (this.minuteSketches.length > SKETCH_MINUTES_KEPT) this.minuteSketches.shift();
    this.minute = undefined;
    // An hour is final with its last minute.
    if (minute.start + MINUTE_MS === hourStart + HOUR_MS) this.sealHour();
  }

  private sealHour(): void {
    const hour = this.hour;
    if (hour === undefined) return;
    this.hour = undefined;
    const sealed = hour.toClusterSecond();
    for (const listener of this.rollupListeners) listener('hour', sealed);
  }
}
