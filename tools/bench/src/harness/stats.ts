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

/** A confidence interval of a median, from the sample's order statistics. */
export interface MedianInterval {
  readonly low: number;
  readonly high: number;
  /** The interval's exact coverage for n independent draws of any continuous distribution (>= the confidence asked for). */
  readonly coverage: number;
}

/**
 * The distribution-free confidence interval of the median (order statistics): with n independent
 * values, the k-th smallest and k-th largest bracket the true median with probability
 * 1 - 2·P(Bin(n, 1/2) <= k - 1), whatever the distribution, outliers included. k is the largest that
 * still gives at least `confidence`, so the interval is the narrowest with that guarantee. Undefined
 * when even [min, max] falls short (fewer than 6 values at 95 %): too few rounds for a verdict.
 * Why not a t-interval of the mean: per-round CPU ratios on these VMs are skewed by rounds far above
 * the rest (2.04 beside 1.6s), which a mean and a standard deviation follow and a median does not.
 */
export function medianInterval(values: readonly number[], confidence: number): MedianInterval | undefined {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const n = sorted.length;
  const tail = (1 - confidence) / 2;
  let k = 0;
  let cumulative = 0;
  let choose = 1;
  // cumulative = P(Bin(n, 1/2) <= j) before k grows to j + 1: the largest k with P(X <= k - 1) <= tail.
  for (let j = 0; j <= Math.floor((n - 1) / 2); j += 1) {
    cumulative += choose / 2 ** n;
    if (cumulative > tail) break;
    k = j + 1;
    choose = (choose * (n - j)) / (j + 1);
  }
  if (k === 0) return undefined;
  let below = 0;
  choose = 1;
  for (let j = 0; j < k; j += 1) {
    below += choose / 2 ** n;
    choose = (choose * (n - j)) / (j + 1);
  }
  return { low: sorted[k - 1] as number, high: sorted[n - k] as number, coverage: 1 - 2 * below };
}

/**
 * The verdict of a floor goal by its median's interval (Method, "Verdict by interval"): true when
 * the whole interval is at or above `atLeast`, false when it is wholly below, undefined (no verdict)
 * when it reaches both sides or there is none (too few clean rounds).
 */
export function intervalVerdict(interval: MedianInterval | undefined, atLeast: number): boolean | undefined {
  if (interval === undefined) return undefined;
  if (interval.low >= atLeast) return true;
  if (interval.high < atLeast) return false;
  return undefined;
}
