/**
 * Remembers the ids of accepted messages for as long as their timestamp is inside the acceptance
 * window, so a copy is refused (a replay) until the copy would be refused as stale anyway.
 *
 * Memory is bounded: ids sit in one bucket per second of their timestamp; whole buckets expire once
 * their second leaves the window. Past `maxIds` the oldest bucket is evicted early, and from then
 * on any message at or before that second is refused (the floor) instead of forgotten: a flood
 * costs freshness, never replay protection. Only messages with a valid signature reach the guard,
 * so an attacker without the key cannot fill it.
 */
export class ReplayGuard {
  private readonly buckets = new Map<number, Set<string>>();
  private size = 0;
  /** Timestamps (ms) below this are refused: their ids may have been evicted. */
  private floorMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly windowMs: number,
    private readonly maxIds: number,
  ) {}

  /** True when the id was not seen and is now remembered; false for a replay (or below the floor). */
  admit(id: string, timestampMs: number, nowMs: number): boolean {
    this.expire(nowMs);
    if (timestampMs < this.floorMs) return false;
    const second = Math.floor(timestampMs / 1000);
    let bucket = this.buckets.get(second);
    // A copy carries the same signed timestamp, so it lands in the same bucket.
    if (bucket?.has(id)) return false;
    if (bucket === undefined) {
      bucket = new Set();
      this.buckets.set(second, bucket);
    }
    bucket.add(id);
    this.size += 1;
    while (this.size > this.maxIds) this.evictOldest();
    return true;
  }

  /** Ids remembered now (for tests and diagnostics). */
  get remembered(): number {
    return this.size;
  }

  private expire(nowMs: number): void {
    const oldestKept = Math.floor((nowMs - this.windowMs) / 1000);
    for (const [second, bucket] of this.buckets) {
      // A bucket's last millisecond is second*1000+999: keep it while that is inside the window.
      if (second < oldestKept) {
        this.buckets.delete(second);
        this.size -= bucket.size;
      }
    }
  }

  private evictOldest(): void {
    let oldest = Number.POSITIVE_INFINITY;
    for (const second of this.buckets.keys()) oldest = Math.min(oldest, second);
    const bucket = this.buckets.get(oldest);
    if (bucket === undefined) return;
    this.buckets.delete(oldest);
    this.size -= bucket.size;
    this.floorMs = Math.max(this.floorMs, (oldest + 1) * 1000);
  }
}
