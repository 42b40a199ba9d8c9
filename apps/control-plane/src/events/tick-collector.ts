import { TickBuilder, type ClusterSecond, type ProcessTick, type TrafficTick } from '@gateway/events';

/** Closed ticks kept for the lease holder to evaluate (an hour at 10 s); older ones are dropped. */
const MAX_READY = 360;

/**
 * Sums the cluster's sealed seconds into evaluation ticks aligned to the interval (10 s: :00, :10,
 * ...). A tick closes once every second in it is sealed, with traffic or without (an empty tick
 * still moves incidents towards recovery). Every instance collects; only the lease holder evaluates.
 */
export class TickCollector {
  private builder: TickBuilder | undefined;
  private readonly ready: TrafficTick[] = [];

  constructor(private intervalMs: number) {}

  setInterval(intervalMs: number): void {
    if (intervalMs === this.intervalMs) return;
    this.intervalMs = intervalMs;
    // A tick in progress is dropped: its length would be neither the old nor the new one.
    this.builder = undefined;
  }

  add(second: ClusterSecond): void {
    const start = Math.floor(second.start / this.intervalMs) * this.intervalMs;
    if (this.builder !== undefined && this.builder.start !== start) return;
    this.builder ??= new TickBuilder(start, this.intervalMs);
    this.builder.add(second);
  }

  /** Closes every tick that ends at or before `sealedUntil` (all its seconds sealed). */
  close(sealedUntil: number, processes: () => ProcessTick[]): void {
    if (!Number.isFinite(sealedUntil)) return;
    // After a stall, ticks older than what is kept are skipped rather than built one by one.
    const oldest = Math.floor(sealedUntil / this.intervalMs) * this.intervalMs - MAX_READY * this.intervalMs;
    let start = Math.max(this.builder?.start ?? Math.floor(sealedUntil / this.intervalMs) * this.intervalMs - this.intervalMs, oldest);
    if (this.builder !== undefined && this.builder.start < oldest) this.builder = undefined;
    while (start + this.intervalMs <= sealedUntil) {
      const tick = (this.builder ?? new TickBuilder(start, this.intervalMs)).build(processes());
      start += this.intervalMs;
      this.builder = new TickBuilder(start, this.intervalMs);
      this.ready.push(tick);
    }
    if (this.ready.length > MAX_READY) this.ready.splice(0, this.ready.length - MAX_READY);
  }

  /** Closed ticks that end after `after`, oldest first (the holder evaluates them and moves its mark). */
  takeAfter(after: number): TrafficTick[] {
    const due = this.ready.filter((tick) => tick.start + tick.durationMs > after);
    this.ready.length = 0;
    return due;
  }
}
