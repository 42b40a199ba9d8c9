import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sortSteps } from './sort-steps';

/** Runs the steps to the end; returns the result and the most comparisons made in one step. */
function drain<T>(items: T[], compare: (a: T, b: T) => number, run: number): { sorted: T[]; steps: number; mostPerStep: number } {
  let calls = 0;
  let mostPerStep = 0;
  let steps = 0;
  const counting = (a: T, b: T): number => {
    calls += 1;
    return compare(a, b);
  };
  const generator = sortSteps(items, counting, run);
  for (;;) {
    const step = generator.next();
    mostPerStep = Math.max(mostPerStep, calls);
    calls = 0;
    if (step.done === true) return { sorted: step.value, steps, mostPerStep };
    steps += 1;
  }
}

describe('sortSteps', () => {
  it('sorts as Array.prototype.sort does, ties in their original order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 2000 }), fc.integer({ min: 1, max: 300 }), (keys, run) => {
        const items = keys.map((key, index) => ({ key, index }));
        const byKey = (a: { key: number }, b: { key: number }): number => a.key - b.key;
        const expected = [...items].sort(byKey);
        const { sorted } = drain(items, byKey, run);
        assert.deepEqual(sorted, expected);
        assert.equal(sorted, items, 'sorted in place');
      }),
    );
  });

  it('never does more than about one run of work in a step', () => {
    const run = 64;
    const items = Array.from({ length: 5000 }, (_, i) => (i * 7919) % 5000);
    const { sorted, steps, mostPerStep } = drain(items, (a, b) => a - b, run);
    assert.deepEqual(sorted, Array.from({ length: 5000 }, (_, i) => i));
    assert.ok(steps >= 5000 / run, `${steps} steps`);
    // The built-in sort of one run makes about run * log2(run) comparisons; a merge step makes at most `run`.
    assert.ok(mostPerStep <= run * Math.log2(run) * 2, `${mostPerStep} comparisons in one step`);
  });
});
