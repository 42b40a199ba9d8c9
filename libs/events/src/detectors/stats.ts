/*
 * The statistics the detectors' confidences are defined with (docs/events.md). Pure functions,
 * tested against known values in stats.spec.ts.
 */

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9: about 15 significant digits). */
export function logGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0] as number;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (c[i] as number) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Φ(x), the standard normal distribution function (erfc by Numerical Recipes' Chebyshev fit, |error| < 1.2e-7). */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const erfc =
    t *
    Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/** Above this many trials the tails use the normal approximation with continuity correction. */
const EXACT_LIMIT = 1000;

/** P(X >= k) for X ~ Binomial(n, p): exact up to 1,000 trials, normal approximation above. */
export function binomialUpperTail(n: number, p: number, k: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  if (n > EXACT_LIMIT) {
    const sd = Math.sqrt(n * p * (1 - p));
    return 1 - normalCdf((k - 0.5 - n * p) / sd);
  }
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  const logNFact = logGamma(n + 1);
  let sum = 0;
  for (let i = k; i <= n; i++) sum += Math.exp(logNFact - logGamma(i + 1) - logGamma(n - i + 1) + i * logP + (n - i) * logQ);
  return Math.min(1, sum);
}

/** P(X >= k) for X ~ Poisson(lambda): exact up to lambda 1,000, normal approximation above. */
export function poissonUpperTail(lambda: number, k: number): number {
  if (k <= 0) return 1;
  if (lambda <= 0) return 0;
  if (lambda > EXACT_LIMIT || k > 100_000) return 1 - normalCdf((k - 0.5 - lambda) / Math.sqrt(lambda));
  let below = 0;
  for (let i = 0; i < k; i++) below += Math.exp(-lambda + i * Math.log(lambda) - logGamma(i + 1));
  return Math.max(0, 1 - below);
}

/** The median of `values` (not modified); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Median absolute deviation from `centre`. */
export function medianAbsoluteDeviation(values: readonly number[], centre: number): number {
  return median(values.map((value) => Math.abs(value - centre)));
}

/** 1.4826 x MAD estimates the standard deviation of normal data (the usual consistency constant). */
export const MAD_TO_SIGMA = 1.4826;

/**
 * A robust z-score: how many robust standard deviations `x` lies above the median. `floor` keeps a
 * flat history (MAD 0) from turning the smallest change into an infinite score.
 */
export function robustZ(x: number, centre: number, mad: number, floor: number): number {
  return (x - centre) / Math.max(MAD_TO_SIGMA * mad, floor);
}

/**
 * The direction of the last values: RISING when the newest is more than `tolerance` (relative)
 * above the mean of the ones before, FALLING when as much below, else STABLE.
 */
export function trendOf(values: readonly number[], tolerance = 0.05): 'RISING' | 'FALLING' | 'STABLE' {
  if (values.length < 2) return 'STABLE';
  const latest = values[values.length - 1] as number;
  const before = values.slice(0, -1);
  const mean = before.reduce((sum, value) => sum + value, 0) / before.length;
  if (latest > mean * (1 + tolerance) && latest - mean > 1e-9) return 'RISING';
  if (latest < mean * (1 - tolerance) && mean - latest > 1e-9) return 'FALLING';
  return 'STABLE';
}

/** Rounds to `digits` decimals (events carry readable numbers). */
export function round(value: number, digits = 4): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
