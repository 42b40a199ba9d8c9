/** Median of the finite values; undefined when there are none. */
export function median(values: ReadonlyArray<number | undefined>): number | undefined {
  const sorted = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Nearest-rank percentile (0 < p <= 100) of values sorted ascending. */
export function percentileOfSorted(sorted: Float64Array, p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

/** a / b, undefined when either is missing or b is 0. */
export function ratio(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined || b === 0 ? undefined : a / b;
}

/** An append-only list of doubles that grows without boxing each sample. */
export class SampleBuffer {
  private data = new Float64Array(1 << 16);
  private size = 0;

  push(value: number): void {
    if (this.size === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.size++] = value;
  }

  get length(): number {
    return this.size;
  }

  sorted(): Float64Array {
    return this.data.slice(0, this.size).sort();
  }
}
