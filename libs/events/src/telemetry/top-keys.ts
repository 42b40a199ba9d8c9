import type { TopKeyWire } from './telemetry-window.types';

/**
 * The heaviest keys of a stream in bounded memory: Space-Saving (Metwally et al., ICDT 2005). Any
 * key seen more than total/capacity times is kept, and a kept key's count is its true count plus
 * at most its `error`. A new key when the table is full takes the slot of the lightest key and
 * inherits its count as error; finding it is a scan of `capacity` slots, done only on such misses.
 */
export class TopKeys {
  private readonly slotOf = new Map<string, number>();
  private readonly keys: string[] = [];
  private readonly counts: Float64Array;
  private readonly errors: Float64Array;
  private readonly rejections: Float64Array;
  /** Every observation, kept or not. */
  total = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('TopKeys capacity must be a positive integer');
    this.counts = new Float64Array(capacity);
    this.errors = new Float64Array(capacity);
    this.rejections = new Float64Array(capacity);
  }

  get size(): number {
    return this.keys.length;
  }

  observe(key: string, rejected: boolean): void {
    this.total += 1;
    let slot = this.slotOf.get(key);
    if (slot === undefined) {
      if (this.keys.length < this.capacity) {
        slot = this.keys.length;
        this.keys.push(key);
      } else {
        slot = this.lightestSlot();
        this.slotOf.delete(this.keys[slot]);
        this.keys[slot] = key;
        this.errors[slot] = this.counts[slot];
        // The evicted key's rejections are not ours: the key's true rejections lie in [rejections, rejections + error].
        this.rejections[slot] = 0;
      }
      this.slotOf.set(key, slot);
    }
    this.counts[slot] += 1;
    if (rejected) this.rejections[slot] += 1;
  }

  /** The `n` heaviest keys, heaviest first. */
  top(n = this.capacity): TopKeyWire[] {
    const out: TopKeyWire[] = [];
    for (let slot = 0; slot < this.keys.length; slot += 1) {
      out.push({ key: this.keys[slot], count: this.counts[slot], rejections: this.rejections[slot], error: this.errors[slot] });
    }
    return out.sort(byCountThenKey).slice(0, Math.max(0, n));
  }

  reset(): void {
    this.slotOf.clear();
    this.keys.length = 0;
    this.counts.fill(0);
    this.errors.fill(0);
    this.rejections.fill(0);
    this.total = 0;
  }

  private lightestSlot(): number {
    let lightest = 0;
    for (let slot = 1; slot < this.keys.length; slot += 1) if (this.counts[slot] < this.counts[lightest]) lightest = slot;
    return lightest;
  }
}

function byCountThenKey(a: TopKeyWire, b: TopKeyWire): number {
  return b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/**
 * Merges the top keys of several windows or data planes: counts, rejections and errors add up per
 * key; the `n` heaviest are kept. A key missing from one list may still have been counted there
 * below that list's cut, so merged counts are lower bounds for such keys (docs/telemetry.md).
 */
export function mergeTopKeys(lists: readonly (readonly TopKeyWire[])[], n: number): TopKeyWire[] {
  const merged = new Map<string, TopKeyWire>();
  for (const list of lists) {
    for (const entry of list) {
      const seen = merged.get(entry.key);
      if (seen === undefined) merged.set(entry.key, { ...entry });
      else {
        seen.count += entry.count;
        seen.rejections += entry.rejections;
        seen.error += entry.error;
      }
    }
  }
  return [...merged.values()].sort(byCountThenKey).slice(0, Math.max(0, n));
}
