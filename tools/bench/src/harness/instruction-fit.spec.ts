import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { InstructionCount } from './callgrind';
import { seededNormals } from './seeded-normals';
import { literalRuntimeShare, sum, withoutLiteralRuntime } from './instruction-figures';
import { batchFigures, batchPlan, chargedError, chargedPerRequest, correlation, fitProcess, fitRequestsAndSeconds, halves, ratioError, relativeDrift, type FitPoint } from './instruction-fit';

const count = (all: number, gc = 0): InstructionCount => ({ all, main: all, timers: 0, compile: 0, gc, literalRuntime: 0 });

const A = 150_000;
const B = 1_300_000;
const SIZES = [125, 250, 500];
/** Seconds a request takes under callgrind, jittered a little by the machine. */
const PER_REQUEST_SECONDS = 0.02;
/** Each point's instructions off the model by this much (a batch's lumpy work: an export, a scavenge's edge). */
const NOISE = 1_500_000;

/**
 * Twelve batches as the harness runs them, each followed by its pause (in units of a 250-request
 * batch's time; 0, none), then an idle spell of 10 s. `inside`: the pause counted in its batch's point instead.
 */
function design(pauses: readonly number[], jitter: () => number, inside = false): { batches: Array<Omit<FitPoint, 'instructions'>>; idle: Array<Omit<FitPoint, 'instructions'>> } {
  const unit = 250 * PER_REQUEST_SECONDS;
  const batches: Array<Omit<FitPoint, 'instructions'>> = [];
  const idle: Array<Omit<FitPoint, 'instructions'>> = [];
  for (const { requests, pause } of batchPlan(12, SIZES, pauses)) {
    const seconds = requests * PER_REQUEST_SECONDS * (1 + 0.03 * jitter());
    batches.push({ requests, seconds: seconds + (inside ? pause * unit : 0) });
    if (!inside && pause > 0) idle.push({ requests: 0, seconds: pause * unit });
  }
  return { batches, idle: [...idle, { requests: 0, seconds: 10 }] };
}

/** Many processes of one design: each fitted, with the spread of its a against the error the fit reports. */
function simulate(pauses: readonly number[], seed: number, inside = false, processes = 400): { aSpread: number; meanReportedError: number; meanA: number; meanCorrelation: number; figureSpread: number; meanFigureError: number } {
  const noise = seededNormals(seed);
  const as: number[] = [];
  const figures: number[] = [];
  const errors: number[] = [];
  const figureErrors: number[] = [];
  const correlations: number[] = [];
  for (let k = 0; k < processes; k += 1) {
    const counted = (p: Omit<FitPoint, 'instructions'>): { requests: number; seconds: number; count: InstructionCount } => ({
      ...p,
      count: count(A * p.requests + B * p.seconds + NOISE * noise()),
    });
    const d = design(pauses, noise, inside);
    const idle = d.idle.map(counted);
    const f = fitProcess({ batches: d.batches.map(counted), collections: [], pauses: idle.slice(0, -1), idle: idle.at(-1) as ReturnType<typeof counted> });
    as.push(f.perRequest);
    errors.push(f.fit.perRequestError);
    figures.push(chargedPerRequest(f, 4000));
    figureErrors.push(chargedError(f, 4000));
    correlations.push(f.busyOnly.correlation);
  }
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = (xs: number[]): number => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));
  return { aSpread: sd(as), meanReportedError: mean(errors), meanA: mean(as), meanCorrelation: mean(correlations), figureSpread: sd(figures), meanFigureError: mean(figureErrors) };
}

test('recovers a per-request and a per-second cost from batches whose seconds per request differ', () => {
  // 150k a request, 700k a second, batches of three sizes at varying speeds, an idle spell.
  const points = [
    { requests: 125, seconds: 1.9 },
    { requests: 250, seconds: 2.4 },
    { requests: 500, seconds: 6.1 },
    { requests: 125, seconds: 0.8 },
    { requests: 0, seconds: 10 },
  ].map((p) => ({ ...p, instructions: 150_000 * p.requests + 700_000 * p.seconds }));
  const fit = fitRequestsAndSeconds(points);
  assert.ok(Math.abs(fit.perRequest - 150_000) < 1e-3, `per request ${fit.perRequest}`);
  assert.ok(Math.abs(fit.perSecond - 700_000) < 1e-3, `per second ${fit.perSecond}`);
  assert.ok(fit.r2 > 0.999999);
  assert.ok(fit.perRequestError < 1e-3 && fit.perSecondError < 1e-3, 'exact points: no error');
});

test('gives no fit when seconds are proportional to requests (the two cannot be told apart)', () => {
  const points = [125, 250, 500].map((requests) => ({ requests, seconds: requests * 0.01, instructions: requests * 160_000 }));
  const fit = fitRequestsAndSeconds(points);
  assert.ok(Number.isNaN(fit.perRequest) && Number.isNaN(fit.perSecond));
});

test('the reported standard errors match the spread of many noisy processes whose truth is known', () => {
  const paced = simulate([0, 0.5, 1, 2], 18);
  // Unbiased, and the error the fit reports is the spread the processes show (within sampling error of 400 processes).
  assert.ok(Math.abs(paced.meanA - A) < 3 * (paced.aSpread / Math.sqrt(400)), `mean a ${paced.meanA}`);
  assert.ok(Math.abs(paced.meanReportedError / paced.aSpread - 1) < 0.2, `reported ${paced.meanReportedError} against spread ${paced.aSpread}`);
  assert.ok(Math.abs(paced.meanFigureError / paced.figureSpread - 1) < 0.2, `figure: reported ${paced.meanFigureError} against spread ${paced.figureSpread}`);
});

test('with one idle spell a and b trade; pauses counted on their own determine a better, pauses inside the batches hardly', () => {
  const backToBack = simulate([0], 19);
  const paused = simulate([0, 0.5, 1, 2], 19);
  const inside = simulate([0, 0.5, 1, 2], 19, true);
  // The batches alone: seconds follow requests, whatever the design.
  assert.ok(backToBack.meanCorrelation > 0.99, `back to back: requests and seconds correlate ${backToBack.meanCorrelation}`);
  assert.ok(backToBack.aSpread > 1.5 * paused.aSpread, `a's spread ${backToBack.aSpread} back to back, ${paused.aSpread} with pauses`);
  assert.ok(inside.aSpread > 1.3 * paused.aSpread, `a's spread ${inside.aSpread} with the pauses inside the batches, ${paused.aSpread} on their own`);
  // The fit says so itself: the worse design reports the larger error, so the harness can refuse a verdict.
  assert.ok(backToBack.meanReportedError > 1.5 * paused.meanReportedError);
  assert.ok(Math.abs(backToBack.meanReportedError / backToBack.aSpread - 1) < 0.2);
});

test('the plan holds every size with every pause in twelve batches, the pauses uncorrelated with the sizes', () => {
  const plan = batchPlan(12, SIZES, [0, 0.5, 1, 2]);
  const pairs = new Set(plan.map((b) => `${b.requests}/${b.pause}`));
  assert.equal(pairs.size, 12);
  assert.ok(Math.abs(correlation(plan.map((b) => b.requests), plan.map((b) => b.pause))) < 1e-12);
});

test('a process: the collector out of the points, back in per request; charged at a request rate', () => {
  // A major collection of 80 M in one batch would pull a least-squares fit; here it is added as its mean a request.
  const batches = [
    { requests: 125, seconds: 1.5, count: count(125 * 150_000 + 1.5 * 700_000 + 1_000_000, 1_000_000) },
    { requests: 250, seconds: 3.5, count: count(250 * 150_000 + 3.5 * 700_000 + 80_000_000, 80_000_000) },
    { requests: 500, seconds: 5.0, count: count(500 * 150_000 + 5.0 * 700_000 + 4_000_000, 4_000_000) },
  ];
  const f = fitProcess({ batches, collections: [], pauses: [], idle: { requests: 0, seconds: 10, count: count(7_000_000) } });
  const gcPerRequest = 85_000_000 / 875;
  assert.ok(Math.abs(f.gcPerRequest - gcPerRequest) < 1e-6);
  assert.ok(Math.abs(f.perRequest - (150_000 + gcPerRequest)) < 1e-3, `per request ${f.perRequest}`);
  assert.ok(Math.abs(f.perSecond - 700_000) < 1e-3);
  assert.ok(Math.abs(chargedPerRequest(f, 5000) - (150_000 + gcPerRequest + 140)) < 1e-3);
});

test("a ratio's error: relative errors in quadrature", () => {
  assert.ok(Math.abs(ratioError(100, 3, 50, 2) - 2 * Math.hypot(0.03, 0.04)) < 1e-12);
});

test("a batch's figure is its count less the fitted clock, per request; the halves show a drift", () => {
  // A process that settles: its batches cost 160k, then 140k a request, on a clock of 500k a second.
  const cost = [160_000, 160_000, 160_000, 140_000, 140_000, 140_000];
  const batches = cost.map((a, k) => ({ requests: SIZES[k % 3] as number, seconds: 2 + k, count: count(a * (SIZES[k % 3] as number) + 500_000 * (2 + k)) }));
  const pauses = [5, 10, 20].map((seconds) => ({ requests: 0, seconds, count: count(500_000 * seconds) }));
  const f = fitProcess({ batches, collections: [], pauses, idle: { requests: 0, seconds: 10, count: count(5_000_000) } });
  const figures = batchFigures({ batches, collections: [], pauses, idle: { requests: 0, seconds: 10, count: count(5_000_000) } }, f);
  const h = halves(figures);
  // The clock is measured from the points without requests, so each batch's own cost comes back close.
  assert.ok(Math.abs(h.first - 160_000) < 5_000 && Math.abs(h.second - 140_000) < 5_000, `halves ${h.first} → ${h.second}`);
  assert.ok(h.first - h.second > 15_000);
});

test('the drift is the halves of the batch figures relative to the figure; a settled process reads ~0', () => {
  const settling = [195_000, 180_000, 165_000, 150_000, 130_000, 120_000, 118_000, 116_000];
  assert.ok(Math.abs(relativeDrift(settling, 140_000) - (121_000 - 172_500) / 140_000) < 1e-12);
  // Noise around a constant: the halves agree to well under the 1 % a verdict allows.
  const noise = seededNormals(7);
  const settled = Array.from({ length: 12 }, () => 120_000 + 300 * noise());
  assert.ok(Math.abs(relativeDrift(settled, 120_000)) < 0.01, `drift ${relativeDrift(settled, 120_000)}`);
});

test("a process on V8's literal runtime path is fitted without it; one that never went there is unchanged", () => {
  const withLiteral = (all: number, literal: number): InstructionCount => ({ ...count(all), literalRuntime: literal });
  const batches = [125, 250, 500].map((requests, k) => ({ requests, seconds: 1 + k, count: withLiteral(150_000 * requests + 500_000 * (1 + k) + 42_000 * requests, 42_000 * requests) }));
  const idle = { requests: 0, seconds: 10, count: withLiteral(5_000_000, 0) };
  const p = { batches, collections: [], pauses: [], idle };
  const f = fitProcess(withoutLiteralRuntime(p));
  assert.ok(Math.abs(f.perRequest - 150_000) < 1e-3, `per request ${f.perRequest}`);
  assert.ok(Math.abs(literalRuntimeShare(p) - (42_000 * 875) / sum(batches.map((b) => b.count.all))) < 1e-12);
  const clean = { batches: batches.map((b) => ({ ...b, count: count(b.count.all - b.count.literalRuntime) })), collections: [], pauses: [], idle: { ...idle, count: count(5_000_000) } };
  assert.deepEqual(withoutLiteralRuntime(clean), clean);
  assert.equal(literalRuntimeShare(clean), 0);
});
