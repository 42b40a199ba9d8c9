import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededNormals } from './seeded-normals';
import { intervalVerdict, medianInterval } from './stats';

test('the median interval takes the order statistics a binomial table gives, with their exact coverage', () => {
  const rounds = (n: number): number[] => Array.from({ length: n }, (_, i) => n - i); // n..1, unsorted on purpose
  // n, confidence -> [k-th smallest, k-th largest] and 1 - 2 P(Bin(n, 1/2) <= k - 1)
  const cases: Array<[number, number, [number, number] | undefined, number | undefined]> = [
    [5, 0.95, undefined, undefined], // [min, max] covers 1 - 2/32 = 0.9375 only
    [5, 0.9, [1, 5], 1 - 2 / 32],
    [6, 0.95, [1, 6], 1 - 2 / 64],
    [9, 0.95, [2, 8], 1 - (2 * 10) / 512],
    [15, 0.95, [4, 12], 1 - (2 * (1 + 15 + 105 + 455)) / 32768],
    [21, 0.95, [6, 16], 1 - (2 * (1 + 21 + 210 + 1330 + 5985 + 20349)) / 2 ** 21],
  ];
  for (const [n, confidence, bounds, coverage] of cases) {
    const interval = medianInterval(rounds(n), confidence);
    if (bounds === undefined) {
      assert.equal(interval, undefined, `n=${n}`);
      continue;
    }
    assert.deepEqual([interval?.low, interval?.high], bounds, `n=${n}`);
    assert.ok(Math.abs((interval?.coverage ?? 0) - (coverage as number)) < 1e-12, `n=${n}: ${interval?.coverage} vs ${coverage}`);
    assert.ok((interval?.coverage ?? 0) >= confidence, `n=${n}`);
  }
});

test('non-finite values are left out, and an outlier moves the interval no further than one rank', () => {
  const interval = medianInterval([1.6, 1.62, Number.NaN, 1.58, 1.65, 1.61, 1.63, 1.59, 1.64, 1.6], 0.95);
  assert.deepEqual([interval?.low, interval?.high], [1.59, 1.64]);
  const withOutlier = medianInterval([1.6, 1.62, 1.58, 1.65, 1.61, 1.63, 1.59, 1.64, 9.9], 0.95);
  assert.deepEqual([withOutlier?.low, withOutlier?.high], [1.59, 1.65]);
});

test('over many simulated runs of a skewed distribution the interval holds the true median at least as often as promised', () => {
  // Seeded, so the test gives the same answer every run; a lognormal-like skew with
  // occasional high rounds, as the CPU ratios have. True median of exp(N(0, 0.1)) * 1.6: 1.6.
  const normal = seededNormals(12345);
  for (const n of [9, 15]) {
    let held = 0;
    const runs = 4000;
    let coverage = 0;
    for (let r = 0; r < runs; r += 1) {
      const values = Array.from({ length: n }, () => 1.6 * Math.exp(0.1 * normal()));
      const interval = medianInterval(values, 0.95);
      assert.ok(interval !== undefined);
      coverage = interval.coverage;
      if (interval.low <= 1.6 && 1.6 <= interval.high) held += 1;
    }
    // Binomial sampling error of 4,000 runs at p ~0.96: sd ~0.003; 0.01 below is > 3 sd.
    assert.ok(held / runs >= coverage - 0.01, `n=${n}: held ${held / runs}, promised ${coverage}`);
    assert.ok(held / runs <= coverage + 0.01, `n=${n}: held ${held / runs}, promised ${coverage}`);
  }
});

test('the verdict by interval: met only when every round the interval keeps is at or above the goal', () => {
  // Per-round ratios printed by real runs (bench README): h-pp2's quiet run at 02:12 (100 B, 9 rounds; 16 KiB, 8
  // clean pairs) and h-pp3's loaded run at 04:37 (16 KiB).
  const quiet100B = [1.53, 1.69, 1.67, 1.67, 1.65, 1.67, 1.61, 2.04, 2.01];
  const quiet16KiB = [1.47, 1.47, 1.45, 1.51, 1.48, 1.5, 1.52, 1.5];
  const loaded16KiB = [1.53, 1.51, 1.75, 1.5, 1.69, 1.41, 1.44, 1.44, 1.54];
  assert.deepEqual([medianInterval(quiet100B, 0.95)?.low, medianInterval(quiet100B, 0.95)?.high], [1.61, 2.01]);
  assert.equal(intervalVerdict(medianInterval(quiet100B, 0.95), 1.5), true);
  // 8 pairs: only [min, max] reaches 95 % (99.2 %).
  assert.deepEqual([medianInterval(quiet16KiB, 0.95)?.low, medianInterval(quiet16KiB, 0.95)?.high], [1.45, 1.52]);
  assert.equal(intervalVerdict(medianInterval(quiet16KiB, 0.95), 1.5), undefined);
  assert.equal(intervalVerdict(medianInterval(loaded16KiB, 0.95), 1.5), undefined);
  assert.equal(intervalVerdict(medianInterval([1.1, 1.2, 1.3, 1.25, 1.15, 1.4, 1.45, 1.2, 1.3], 0.95), 1.5), false);
  // Five rounds can never decide at 95 %, however far from the goal.
  assert.equal(intervalVerdict(medianInterval([3, 3, 3, 3, 3], 0.95), 1.5), undefined);
  // The goal itself as the interval's low end is met (>=), as the median rule had it.
  assert.equal(intervalVerdict({ low: 1.5, high: 1.7, coverage: 0.96 }, 1.5), true);
  assert.equal(intervalVerdict({ low: 1.2, high: 1.5, coverage: 0.96 }, 1.5), undefined);
});
