import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RateLimitAlgorithm, RateLimitRule } from './rate-limit-store';
import { MemoryRateLimitStore } from './memory-rate-limit.store';

function storeAt(start: number): { store: MemoryRateLimitStore; clock: { now: number } } {
  const clock = { now: start };
  return { store: new MemoryRateLimitStore({ now: () => clock.now }), clock };
}

function burst(store: MemoryRateLimitStore, key: string, rule: RateLimitRule, n: number): boolean[] {
  return Array.from({ length: n }, () => store.consume(key, rule).allowed);
}

const ALGORITHMS: RateLimitAlgorithm[] = ['token-bucket', 'fixed-window', 'sliding-window', 'leaky-bucket'];

for (const algorithm of ALGORITHMS) {
  test(`${algorithm}: a burst gets exactly the limit, remaining counts down to 0, keys are separate`, async () => {
    const { store } = storeAt(1_000_000);
    const rule: RateLimitRule = { algorithm, limit: 5, windowMs: 60_000 };
    const remaining: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const d = store.consume('a', rule);
      assert.equal(d.allowed, true);
      remaining.push(d.remaining);
    }
    assert.deepEqual(remaining, [4, 3, 2, 1, 0]);
    const rejected = store.consume('a', rule);
    assert.equal(rejected.allowed, false);
    assert.ok(rejected.retryAfterMs > 0);
    assert.deepEqual(burst(store, 'b', rule, 6), [true, true, true, true, true, false]);
    await store.close();
  });
}

test('token-bucket refills limit/window per ms: one token after window/limit', async () => {
  const { store, clock } = storeAt(0);
  const rule: RateLimitRule = { algorithm: 'token-bucket', limit: 10, windowMs: 10_000 };
  assert.equal(burst(store, 'k', rule, 11).filter(Boolean).length, 10);
  const rejected = store.consume('k', rule);
  assert.equal(rejected.retryAfterMs, 1000);
  assert.equal(rejected.resetAt, 10_000);
  clock.now = 999;
  assert.equal(store.consume('k', rule).allowed, false);
  clock.now = 1000;
  assert.equal(store.consume('k', rule).allowed, true);
  assert.equal(store.consume('k', rule).allowed, false);
  clock.now = 1000 + 10_000;
  assert.equal(burst(store, 'k', rule, 11).filter(Boolean).length, 10, 'never more than the capacity');
  await store.close();
});

test('fixed-window: the count starts again at the aligned window boundary', async () => {
  const { store, clock } = storeAt(60_000);
  const rule: RateLimitRule = { algorithm: 'fixed-window', limit: 3, windowMs: 1000 };
  clock.now = 60_900;
  assert.deepEqual(burst(store, 'k', rule, 4), [true, true, true, false]);
  const rejected = store.consume('k', rule);
  assert.equal(rejected.resetAt, 61_000);
  assert.equal(rejected.retryAfterMs, 100);
  clock.now = 61_000;
  assert.deepEqual(burst(store, 'k', rule, 4), [true, true, true, false]);
  await store.close();
});

test('sliding-window: never more than the limit in any window-long span (no boundary burst)', async () => {
  const { store, clock } = storeAt(0);
  const rule: RateLimitRule = { algorithm: 'sliding-window', limit: 3, windowMs: 1000 };
  clock.now = 900;
  assert.deepEqual(burst(store, 'k', rule, 3), [true, true, true]);
  clock.now = 1100; // a fixed window would allow 3 more here
  const d = store.consume('k', rule);
  assert.equal(d.allowed, false);
  assert.equal(d.retryAfterMs, 800);
  clock.now = 1899;
  assert.equal(store.consume('k', rule).allowed, false);
  clock.now = 1900;
  assert.deepEqual(burst(store, 'k', rule, 4), [true, true, true, false]);
  await store.close();
});

test('leaky-bucket: the level drains limit/window per ms', async () => {
  const { store, clock } = storeAt(0);
  const rule: RateLimitRule = { algorithm: 'leaky-bucket', limit: 4, windowMs: 4000 };
  assert.deepEqual(burst(store, 'k', rule, 5), [true, true, true, true, false]);
  const rejected = store.consume('k', rule);
  assert.equal(rejected.retryAfterMs, 1000);
  assert.equal(rejected.resetAt, 4000);
  clock.now = 2000;
  assert.deepEqual(burst(store, 'k', rule, 3), [true, true, false]);
  await store.close();
});

for (const algorithm of ALGORITHMS) {
  test(`${algorithm}: refund gives the request back`, async () => {
    const { store } = storeAt(5_000_000);
    const rule: RateLimitRule = { algorithm, limit: 2, windowMs: 60_000 };
    const first = store.consume('k', rule);
    store.refund('k', rule, first);
    store.consume('k', rule);
    const second = store.consume('k', rule);
    assert.equal(second.allowed, true, 'the refunded request did not count');
    assert.equal(store.consume('k', rule).allowed, false);
    await store.close();
  });
}

test('expired keys are swept and the store is bounded', async () => {
  const { store, clock } = storeAt(0);
  const rule: RateLimitRule = { algorithm: 'fixed-window', limit: 1, windowMs: 1000 };
  for (let i = 0; i < 50; i += 1) store.consume(`k${i}`, rule);
  assert.equal(store.size, 50);
  clock.now = 1000;
  store.sweep();
  assert.equal(store.size, 0);
  await store.close();
  const small = new MemoryRateLimitStore({ maxKeys: 10, now: () => 0 });
  for (let i = 0; i < 100; i += 1) small.consume(`k${i}`, rule);
  assert.equal(small.size, 10);
  await small.close();
});
