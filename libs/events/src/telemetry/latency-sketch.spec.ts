import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom, standardNormal } from './seeded-random';
import { LATENCY_BUCKETS, LatencySketch, MAX_TRACKED_MS, mergeLatencyWires, RELATIVE_ACCURACY, wireQuantiles } from './latency-sketch';

/** Latency distributions a gateway sees, in ms. */
const DISTRIBUTIONS: { name: string; sample: (random: () => number) => number }[] = [
  { name: 'log-normal around 20 ms', sample: (r) => Math.exp(Math.log(20) + 0.6 * standardNormal(r)) },
  { name: 'uniform 1..500 ms', sample: (r) => 1 + 499 * r() },
  { name: 'exponential, mean 8 ms', sample: (r) => -8 * Math.log(1 - r()) },
  { name: 'bimodal: 90 % cache hits near 0.3 ms, 10 % slow upstream near 900 ms', sample: (r) => (r() < 0.9 ? 0.3 + 0.05 * standardNormal(r) ** 2 : 900 + 100 * standardNormal(r)) },
  { name: 'heavy tail (Pareto, alpha 1.2, from 2 ms)', sample: (r) => 2 / (1 - r()) ** (1 / 1.2) },
];

/** The exact value at the sketch's rank convention q·(n-1). */
function exactQuantile(sorted: number[], q: number): number {
  return sorted[Math.floor(q * (sorted.length - 1))];
}

for (const { name, sample } of DISTRIBUTIONS) {
  test(`merged p50/p95/p99 of three data planes are within 2 % of exact: ${name}`, () => {
    const random = seededRandom(name.length * 7919);
    const planes = [new LatencySketch(), new LatencySketch(), new LatencySketch()];
    const all: number[] = [];
    for (let i = 0; i < 60_000; i += 1) {
      const ms = sample(random);
      all.push(ms);
      // Uneven shares, as behind a load balancer with one slow plane.
      planes[i % 7 === 0 ? 2 : i % 2].record(ms);
    }
    const merged = new LatencySketch();
    for (const plane of planes) merged.addWire(JSON.parse(JSON.stringify(plane.toWire())));
    all.sort((a, b) => a - b);
    assert.equal(merged.count, all.length);
    for (const q of [0.5, 0.95, 0.99]) {
      const exact = exactQuantile(all, q);
      const estimate = merged.quantile(q);
      const error = Math.abs(estimate - exact) / exact;
      assert.ok(error <= 0.02, `p${q * 100}: estimate ${estimate} vs exact ${exact} (error ${(error * 100).toFixed(3)} %)`);
      assert.ok(error <= RELATIVE_ACCURACY + 1e-9, `p${q * 100} within the sketch's own accuracy`);
    }
  });
}

test('the wire form lists only non-zero buckets, as ascending gaps, and round-trips', () => {
  const sketch = new LatencySketch();
  for (const ms of [5, 5, 5, 100, 0, 0.001]) sketch.record(ms);
  const wire = sketch.toWire();
  assert.equal(wire.buckets.length, 4, 'two distinct buckets: 5 ms and 100 ms');
  assert.deepEqual([wire.buckets[1], wire.buckets[3]], [3, 1]);
  assert.ok(wire.buckets[0] > 0 && wire.buckets[2] > 0);
  assert.equal(wire.zero, 2);
  assert.equal(wire.count, 6);
  assert.equal(wire.sumMs, 115);
  const copy = new LatencySketch();
  copy.addWire(wire);
  assert.deepEqual(copy.toWire(), wire);
});

test('reset empties the sketch so the next window starts from nothing', () => {
  const sketch = new LatencySketch();
  sketch.record(12);
  sketch.record(7000);
  sketch.reset();
  assert.deepEqual(sketch.toWire(), { count: 0, sumMs: 0, zero: 0, buckets: [] });
  assert.equal(sketch.quantile(0.99), 0);
  sketch.record(3);
  assert.ok(Math.abs(sketch.quantile(0.5) - 3) / 3 <= RELATIVE_ACCURACY);
});

test('latencies beyond the tracked range land in the last bucket; NaN and negatives count as zero', () => {
  const sketch = new LatencySketch();
  sketch.record(MAX_TRACKED_MS * 10);
  sketch.record(Number.NaN);
  sketch.record(-4);
  const wire = sketch.toWire();
  assert.deepEqual(wire.buckets, [LATENCY_BUCKETS - 1, 1]);
  assert.equal(wire.zero, 2);
  assert.equal(sketch.sumMs, MAX_TRACKED_MS * 10);
  assert.ok(Math.abs(sketch.quantile(1) - MAX_TRACKED_MS) / MAX_TRACKED_MS <= RELATIVE_ACCURACY);
});

test('merging wire sketches equals recording everything into one sketch', () => {
  const random = seededRandom(99);
  const parts = [new LatencySketch(), new LatencySketch(), new LatencySketch()];
  const all = new LatencySketch();
  for (let i = 0; i < 5000; i += 1) {
    const ms = i % 50 === 0 ? 0 : Math.exp(4 * random());
    parts[i % 3].record(ms);
    all.record(ms);
  }
  const empty = new LatencySketch().toWire();
  const merged = [empty, ...parts.map((p) => p.toWire()), empty].reduce(mergeLatencyWires);
  const expected = all.toWire();
  assert.deepEqual(merged.buckets, expected.buckets);
  assert.deepEqual([merged.count, merged.zero], [expected.count, expected.zero]);
  assert.ok(Math.abs(merged.sumMs - expected.sumMs) < 0.01);
  assert.deepEqual(wireQuantiles(merged, [0.5, 0.99]), [all.quantile(0.5), all.quantile(0.99)]);
});
