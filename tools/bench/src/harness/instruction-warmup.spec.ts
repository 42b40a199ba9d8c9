import { test } from 'node:test';
import assert from 'node:assert/strict';
import { warmupPlan, type WarmupStep } from './instruction-warmup';

const requestsOf = (plan: readonly WarmupStep[]): number[] => plan.flatMap((s) => ('requests' in s ? [s.requests] : []));
const gapsOf = (plan: readonly WarmupStep[]): number[] => plan.flatMap((s) => ('gapSeconds' in s ? [s.gapSeconds] : []));

test('the warm-up is chunked like the batches, sizes in turn, and sends exactly the requests asked for', () => {
  const plan = warmupPlan(40_000, [125, 250, 500], 3, 5);
  const chunks = requestsOf(plan);
  assert.equal(chunks.reduce((a, b) => a + b, 0), 40_000);
  assert.deepEqual(chunks.slice(0, 4), [125, 250, 500, 125]);
  assert.ok(chunks.every((n) => n <= 500 && n > 0));
  // The last chunk is cut to fit: 40,000 = 45 cycles of 875 (39,375) + 125 + 250 + 250.
  assert.equal(chunks.at(-1), 250);
});

test('gaps are spread between chunks, never first or last, so the warm-up ends on traffic', () => {
  const plan = warmupPlan(10_000, [250], 3, 6);
  assert.deepEqual(gapsOf(plan), [6, 6, 6]);
  assert.ok('requests' in (plan[0] as WarmupStep) && 'requests' in (plan.at(-1) as WarmupStep));
  // 40 chunks: gaps after chunks 10, 20 and 30 (1-based), a quarter of the way apart.
  const positions = plan.flatMap((s, k) => ('gapSeconds' in s ? [requestsOf(plan.slice(0, k)).length] : []));
  assert.deepEqual(positions, [10, 20, 30]);
});

test('a warm-up shorter than its gaps keeps what fits; no gaps asked, none given', () => {
  assert.deepEqual(warmupPlan(300, [250], 3, 5), [{ requests: 250 }, { gapSeconds: 5 }, { requests: 50 }]);
  assert.deepEqual(gapsOf(warmupPlan(5_000, [250], 0, 5)), []);
  assert.deepEqual(warmupPlan(100, [250], 2, 5), [{ requests: 100 }]);
  assert.throws(() => warmupPlan(100, [0], 1, 5));
});
