import { sum, type ProcessCount } from './instruction-figures';

/** One counted interval of a process: requests served in it, its wall time, its instructions. */
export interface FitPoint {
  readonly requests: number;
  readonly seconds: number;
  readonly instructions: number;
}

/** Instructions = perRequest * requests + perSecond * seconds, least squares (no intercept). */
export interface RateFit {
  readonly perRequest: number;
  readonly perSecond: number;
  /** Share of the points' variance around zero the fit explains (uncentred R², since there is no intercept). */
  readonly r2: number;
  readonly points: number;
  /**
   * Standard errors of perRequest and perSecond and their covariance, from the residuals
   * (sigma² (X'X)⁻¹, sigma² = residual / (points - 2)). When requests and seconds move together,
   * the two terms trade against each other and these grow however good R² looks: they are the
   * fit's condition, what a verdict must check.
   */
  readonly perRequestError: number;
  readonly perSecondError: number;
  readonly covariance: number;
  /** Pearson correlation of the points' requests and seconds (centred): near 1, a and b cannot be told apart. */
  readonly correlation: number;
}

const NO_FIT: RateFit = {
  perRequest: Number.NaN,
  perSecond: Number.NaN,
  r2: Number.NaN,
  points: 0,
  perRequestError: Number.NaN,
  perSecondError: Number.NaN,
  covariance: Number.NaN,
  correlation: Number.NaN,
};
/** Below this, requests and seconds are too nearly proportional to be told apart: no fit. */
const LEAST_INDEPENDENCE = 1e-4;

/**
 * The two-term least-squares fit. Under callgrind a request takes milliseconds, so a batch's count
 * is its requests' work plus whatever the clock drives in its wall time (timers, the delay monitor,
 * a window a second). Points whose seconds per request differ (batches of several sizes, a machine
 * whose load changes, an idle spell with no request at all) let the two be told apart.
 */
export function fitRequestsAndSeconds(points: readonly FitPoint[]): RateFit {
  let nn = 0;
  let ns = 0;
  let ss = 0;
  let ny = 0;
  let sy = 0;
  let yy = 0;
  for (const p of points) {
    nn += p.requests * p.requests;
    ns += p.requests * p.seconds;
    ss += p.seconds * p.seconds;
    ny += p.requests * p.instructions;
    sy += p.seconds * p.instructions;
    yy += p.instructions * p.instructions;
  }
  const det = nn * ss - ns * ns;
  // det / (nn * ss) = 1 - cos² of the angle between the requests and seconds columns.
  const r = correlation(
    points.map((p) => p.requests),
    points.map((p) => p.seconds),
  );
  if (points.length < 3 || !(nn > 0 && ss > 0) || det / (nn * ss) < LEAST_INDEPENDENCE) return { ...NO_FIT, points: points.length, correlation: r };
  const perRequest = (ny * ss - sy * ns) / det;
  const perSecond = (sy * nn - ny * ns) / det;
  let residual = 0;
  for (const p of points) residual += (p.instructions - perRequest * p.requests - perSecond * p.seconds) ** 2;
  const variance = residual / (points.length - 2);
  return {
    perRequest,
    perSecond,
    r2: yy > 0 ? 1 - residual / yy : Number.NaN,
    points: points.length,
    perRequestError: Math.sqrt((variance * ss) / det),
    perSecondError: Math.sqrt((variance * nn) / det),
    covariance: (-variance * ns) / det,
    correlation: r,
  };
}

/** Pearson's correlation of two equally long series (NaN when either is constant). */
export function correlation(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i += 1) {
    const dx = (xs[i] as number) - mx;
    const dy = (ys[i] as number) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : Number.NaN;
}

/**
 * The batches' design: batch k serves sizes[k mod sizes] requests, then pauses pauses[k mod pauses]
 * (in the caller's unit; 0, none), the pause counted on its own. Cycles of coprime lengths (3 sizes,
 * 4 pauses) give every size with every pause in 12 batches, so neither follows the other.
 */
export const batchPlan = (batches: number, sizes: readonly number[], pauses: readonly number[]): Array<{ requests: number; pause: number }> =>
  Array.from({ length: batches }, (_, k) => ({ requests: sizes[k % sizes.length] as number, pause: pauses[k % pauses.length] as number }));

/** What one process's batches and idle spell give: the fit, and the collector's share added back per request. */
export interface ProcessFit {
  /** The fit over the batches and the idle spell, the collector left out of every point. */
  readonly fit: RateFit;
  /** The same fit over the batches alone: a cross-check that the clock's work under traffic is the idle spells'. */
  readonly busyOnly: RateFit;
  /** The collector's instructions in the batches over their requests (scavenges and any major collection). */
  readonly gcPerRequest: number;
  /** fit.perRequest + gcPerRequest: what a request costs, whatever its wall time. */
  readonly perRequest: number;
  /** fit.perSecond: what the clock costs a second, whatever the traffic. */
  readonly perSecond: number;
}

/**
 * Per process: Ir = a * requests + b * seconds over its batches (of several sizes), its pauses and
 * its idle spell, every thread, the timers phase left in (it is the clock's and lands in b). The collector
 * is taken out of the points and added back as its mean per request: a major collection falls in
 * whichever batch crosses the old generation's limit, and one such point would pull a least-squares
 * fit by far more than the collection costs a request; allocation drives it, so it is charged to
 * requests in full (a slight overstatement: the clock's allocations are in it too).
 */
export function fitProcess(p: ProcessCount): ProcessFit {
  const point = (requests: number, seconds: number, count: ProcessCount['idle']['count']): FitPoint => ({ requests, seconds, instructions: count.all - count.gc });
  const batches = p.batches.map((b) => point(b.requests, b.seconds, b.count));
  const idle = [...p.pauses, p.idle].map((b) => point(0, b.seconds, b.count));
  const fit = fitRequestsAndSeconds([...batches, ...idle]);
  const gcPerRequest = sum(p.batches.map((b) => b.count.gc)) / sum(p.batches.map((b) => b.requests));
  return { fit, busyOnly: fitRequestsAndSeconds(batches), gcPerRequest, perRequest: fit.perRequest + gcPerRequest, perSecond: fit.perSecond };
}

/**
 * Each batch's own per-request figure with the process's fitted clock taken off, (Ir - b x seconds)
 * / requests, the collector left out as in the fit, in the batches' order. A fit's residuals, per
 * request: a trend through the run (a process still settling) or batches slowed by the machine
 * (a starved process runs fewer timers than b x seconds) shows here, not in R².
 */
export const batchFigures = (p: ProcessCount, f: ProcessFit): number[] => p.batches.map((b) => (b.count.all - b.count.gc - f.perSecond * b.seconds) / b.requests);

/** The mean of the first and of the second half of a process's batch figures (batchFigures). */
export function halves(values: readonly number[]): { first: number; second: number } {
  const half = Math.floor(values.length / 2);
  const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { first: mean(values.slice(0, half)), second: mean(values.slice(values.length - half)) };
}

/** A process's instructions a request at `requestsPerSecond`: its per-request cost plus its clock's work shared by that many requests. */
export const chargedPerRequest = (f: ProcessFit, requestsPerSecond: number): number => f.perRequest + f.perSecond / requestsPerSecond;

/**
 * The standard error of chargedPerRequest, a + b / R: var(a) + 2 cov(a, b) / R + var(b) / R². The
 * collector's mean a request is taken as exact (it is counted, not fitted).
 */
export const chargedError = (f: ProcessFit, requestsPerSecond: number): number =>
  Math.sqrt(f.fit.perRequestError ** 2 + (2 * f.fit.covariance) / requestsPerSecond + f.fit.perSecondError ** 2 / requestsPerSecond ** 2);

/**
 * The standard error of a ratio x / y of two independent estimates (first order): the relative
 * errors add in quadrature. Used to ask whether a goal lies within the noise of a process pair's ratio.
 */
export const ratioError = (x: number, xError: number, y: number, yError: number): number => Math.abs(x / y) * Math.hypot(xError / x, yError / y);

/**
 * How far a process moved through its batches: (second half - first half) of its batch figures,
 * relative to `figure` (its goal figure). A process still settling (code re-optimised, a connection
 * or a timer met for the first time during the count) reads a trend here that no fit removes, and
 * the fit's a is then an average over a moving target: a verdict needs this near 0.
 */
export const relativeDrift = (figures: readonly number[], figure: number): number => {
  const h = halves(figures);
  return (h.second - h.first) / figure;
};
