import type { TopKeyWire } from './telemetry-window.types';

/** Slots a sketch starts with (its arrays stay on the V8 heap, no external backing store). */
const INITIAL_SLOTS = 4;

/**
 * The heaviest keys of a stream in bounded memory: Space-Saving (Metwally et al., ICDT 2005). Any
 * key seen more than total/capacity times is kept, and a kept key's count is its true count plus
 * at most its `error`. A new key when the table is full takes the slot of the lightest key and
 * inherits its count as error. The slots form a min-heap on count, so the lightest is at the root:
 * a flood of distinct keys costs O(log capacity) each, and a heavy key (a leaf) costs a compare.
 */
export class TopKeys {
  /** Heap position of each kept key. */
  private readonly positionOf = new Map<string, number>();
  private readonly keys: string[] = [];
  // Grown on demand up to `capacity` (doubling): a sketch per rate-limited route is created with
  // its route, and at 10,000 routes full-size arrays would hold tens of MB for keys never seen.
  private counts: Float64Array;
  private errors: Float64Array;
  private rejections: Float64Array;
  /** Every observation, kept or not. */
  total = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('TopKeys capacity must be a positive integer');
    const initial = Math.min(capacity, INITIAL_SLOTS);
    this.counts = new Float64Array(initial);
    this.errors = new Float64Array(initial);
    this.rejections = new Float64Array(initial);
  }

  get size(): number {
    return this.keys.length;
  }

  observe(key: string, rejected: boolean): void {
    this.total += 1;
    let position = this.positionOf.get(key);
    if (position === undefined) {
      if (this.keys.length < this.capacity) {
        // A new key has the least possible count (1): appended as a leaf, it rises to the root.
        position = this.keys.length;
        if (position === this.counts.length) this.grow();
        this.keys.push(key);
        this.counts[position] = 0;
        this.errors[position] = 0;
        this.rejections[position] = 0;
        this.positionOf.set(key, position);
        position = this.siftUp(position);
      } else {
        position = 0;
        this.positionOf.delete(this.keys[0]);
        this.keys[0] = key;
        this.errors[0] = this.counts[0];
        // The evicted key's rejections are not ours: the key's true rejections lie in [rejections, rejections + error].
        this.rejections[0] = 0;
        this.positionOf.set(key, 0);
      }
    }
    this.counts[position] += 1;
    if (rejected) this.rejections[position] += 1;
    this.siftDown(position);
  }

  /** The `n` heaviest keys, heaviest first. */
  top(n = this.capacity): TopKeyWire[] {
    const out: TopKeyWire[] = [];
    for (let i = 0; i < this.keys.length; i += 1) {
      out.push({ key: this.keys[i], count: this.counts[i], rejections: this.rejections[i], error: this.errors[i] });
    }
    return out.sort(byCountThenKey).slice(0, Math.max(0, n));
  }

  reset(): void {
    this.positionOf.clear();
    this.keys.length = 0;
    this.total = 0;
  }

  private grow(): void {
    const size = Math.min(this.capacity, this.counts.length * 2);
    this.counts = grown(this.counts, size);
    this.errors = grown(this.errors, size);
    this.rejections = grown(this.rejections, size);
  }

  private siftUp(from: number): number {
    let i = from;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.counts[parent] <= this.counts[i]) break;
      this.swap(i, parent);
      i = parent;
    }
    return i;
  }

  private siftDown(from: number): void {
    const size = this.keys.length;
    let i = from;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) return;
      const right = left + 1;
      const lighter = right < size && this.counts[right] < this.counts[left] ? right : left;
      if (this.counts[i] <= this.counts[lighter]) return;
      this.swap(i, lighter);
      i = lighter;
    }
  }

  private swap(a: number, b: number): void {
    const key = this.keys[a];
    this.keys[a] = this.keys[b];
    this.keys[b] = key;
    swapIn(this.counts, a, b);
    swapIn(this.errors, a, b);
    swapIn(this.rejections, a, b);
    this.positionOf.set(this.keys[a], a);
    this.positionOf.set(key, b);
  }
}

function grown(values: Float64Array, size: number): Float64Array {
  const next = new Float64Array(size);
  next.set(values);
  return next;
}

function swapIn(values: Float64Array, a: number, b: number): void {
  const value = values[a];
  values[a] = values[b];
  values[b] = value;
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
