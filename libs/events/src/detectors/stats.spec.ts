import { test } from 'node:test';
import assert from 'node:assert/strict';
import { binomialUpperTail, logGamma, median, medianAbsoluteDeviation, normalCdf, poissonUpperTail, robustZ, trendOf } from './stats';

const close = (actual: number, expected: number, tolerance: number, label: string): void => {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${label}: ${actual} is not within ${tolerance} of ${expected}`);
};

test('logGamma matches ln((n-1)!) and ln Γ(1/2)', () => {
  close(logGamma(1), 0, 1e-12, 'Γ(1)');
  close(logGamma(11), Math.log(3628800), 1e-10, 'Γ(11)');
  close(logGamma(0.5), Math.log(Math.sqrt(Math.PI)), 1e-10, 'Γ(1/2)');
});

test('normalCdf matches the table of the standard normal distribution', () => {
  const table: Array<[number, number]> = [
    [0, 0.5],
    [1, 0.841344746],
    [-1, 0.158655254],
    [1.959964, 0.975],
    [3, 0.998650102],
    [-3.5, 0.000232629],
  ];
  for (const [x, expected] of table) close(normalCdf(x), expected, 2e-7, `Φ(${x})`);
});

test('binomialUpperTail is exact for small n (hand-computed sums) and continuous into the normal approximation', () => {
  // P(X >= 2), n = 3, p = 0.5: (3 + 1) / 8
  close(binomialUpperTail(3, 0.5, 2), 0.5, 1e-12, 'n=3');
  // P(X >= 1), n = 10, p = 0.1: 1 - 0.9^10
  close(binomialUpperTail(10, 0.1, 1), 1 - 0.9 ** 10, 1e-12, 'n=10');
  // P(X >= 5), n = 20, p = 0.1 = 0.0431745 (R: 1 - pbinom(4, 20, 0.1))
  close(binomialUpperTail(20, 0.1, 5), 0.0431745, 1e-6, 'n=20');
  assert.equal(binomialUpperTail(10, 0.1, 0), 1);
  assert.equal(binomialUpperTail(10, 0.1, 11), 0);
  close(binomialUpperTail(1000, 0.1, 120), binomialUpperTail(1001, 0.1, 120), 0.02, 'exact vs normal at the switch');
});

test('poissonUpperTail: P(X >= 1) = 1 - e^-λ; P(X >= 3), λ = 2 = 1 - 5e^-2', () => {
  close(poissonUpperTail(2, 1), 1 - Math.exp(-2), 1e-12, 'k=1');
  close(poissonUpperTail(2, 3), 1 - 5 * Math.exp(-2), 1e-12, 'k=3');
  assert.equal(poissonUpperTail(2, 0), 1);
});

test('median, MAD, robust z and trend', () => {
  assert.equal(median([5, 1, 3]), 3);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
  assert.equal(medianAbsoluteDeviation([1, 2, 3, 4, 100], 3), 1);
  close(robustZ(10, 4, 2, 1), 6 / (1.4826 * 2), 1e-12, 'z');
  assert.equal(robustZ(10, 4, 0, 2), 3);
  assert.equal(trendOf([1, 1, 2]), 'RISING');
  assert.equal(trendOf([2, 2, 1]), 'FALLING');
  assert.equal(trendOf([2, 2, 2.05]), 'STABLE');
  assert.equal(trendOf([3]), 'STABLE');
});
