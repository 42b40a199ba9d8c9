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
}

const NO_FIT: RateFit = { perRequest: Number.NaN, perSecond: Number.NaN, r2: Number.NaN, points: 0 };
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
  if (points.length < 3 || !(nn > 0 && ss > 0) || det / (nn * ss) < LEAST_INDEPENDENCE) return { ...NO_FIT, points: points.length };
  const perRequest = (ny * ss - sy * ns) / det;
  const perSecond = (sy * nn - ny * ns) / det;
  let residual = 0;
  for (const p of points) residual += (p.instructions - perRequest * p.requests - perSecond * p.seconds) ** 2;
  return { perRequest, perSecond, r2: yy > 0 ? 1 - residual / yy : Number.NaN, points: points.length };
}

/** What one process's batches and idle spell give: the fit, and the collector's share added back per request. */
export interface ProcessFit {
  /** The fit over the batches and the idle spell, the collector left out of every point. */
  readonly fit: RateFit;
  /** The same fit over the batches alone: a cross-check that the clock's work under traffic is the idle spell's. */
  readonly busyOnly: RateFit;
  /** The collector's instructions in the batches over their requests (scavenges and any major collection). */
  readonly gcPerRequest: number;
  /** fit.perRequest + gcPerRequest: what a request costs, whatever its wall time. */
  readonly perRequest: number;
  /** fit.perSecond: what the clock costs a second, whatever the traffic. */
  readonly perSecond: number;
}

/**
 * Per process: Ir = a * requests + b * seconds over its batches (of several sizes) and its idle
 * spell, every thread, the timers phase left in (it is the clock's and lands in b). The collector
 * is taken out of the points and added back as its mean per request: a major collection falls in
 * whichever batch crosses the old generation's limit, and one such point would pull a least-squares
 * fit by far more than the collection costs a request; allocation drives it, so it is charged to
 * requests in full (a slight overstatement: the clock's allocations are in it too).
 */
export function fitProcess(p: ProcessCount): ProcessFit {
  const point = (requests: number, seconds: number, count: ProcessCount['idle']['count']): FitPoint => ({ requests, seconds, instructions: count.all - count.gc });
  const batches = p.batches.map((b) => point(b.requests, b.seconds, b.count));
  const fit = fitRequestsAndSeconds([...batches, point(0, p.idle.seconds, p.idle.count)]);
  const gcPerRequest = sum(p.batches.map((b) => b.count.gc)) / sum(p.batches.map((b) => b.requests));
  return { fit, busyOnly: fitRequestsAndSeconds(batches), gcPerRequest, perRequest: fit.perRequest + gcPerRequest, perSecond: fit.perSecond };
}

/** A process's instructions a request at `requestsPerSecond`: its per-request cost plus its clock's work shared by that many requests. */
export const chargedPerRequest = (f: ProcessFit, requestsPerSecond: number): number => f.perRequest + f.perSecond / requestsPerSecond;
