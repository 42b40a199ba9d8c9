import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay } from './retry.policy';

test('exponential backoff: initial * multiplier^(n-1), capped at maxDelay', () => {
  const settings = { initialDelay: 100, maxDelay: 1000, multiplier: 3, jitter: false };
  assert.deepEqual([1, 2, 3, 4].map((n) => backoffDelay(settings, n)), [100, 300, 900, 1000]);
});

test('jitter spreads the delay over [base/2, base]', () => {
  const settings = { initialDelay: 200, maxDelay: 2000, multiplier: 2, jitter: true };
  assert.equal(backoffDelay(settings, 2, () => 0), 200);
  assert.equal(backoffDelay(settings, 2, () => 1), 400);
});
