import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplayGuard } from './replay-guard';

test('an id is admitted once; it is forgotten only once its timestamp has left the window', () => {
  const guard = new ReplayGuard(60_000, 1000);
  const t = 1_000_000;
  assert.equal(guard.admit('a', t, t), true);
  assert.equal(guard.admit('a', t, t + 30_000), false);
  assert.equal(guard.admit('a', t, t + 60_000), false, 'still inside the window');
  assert.equal(guard.admit('b', t + 61_500, t + 61_500), true);
  assert.equal(guard.remembered, 1, "a's bucket expired once a message proves the clock moved past it");
});

test('a flood of distinct ids keeps memory bounded, and an evicted id is still refused (the floor), never forgotten', () => {
  const guard = new ReplayGuard(60_000, 500);
  const t = 5_000_000;
  // 10 seconds of 100 messages each: twice what the guard may remember.
  for (let s = 0; s < 10; s += 1) for (let i = 0; i < 100; i += 1) assert.equal(guard.admit(`${s}-${i}`, t + s * 1000, t + s * 1000), true);
  assert.ok(guard.remembered <= 500, `remembered ${guard.remembered}`);
  assert.equal(guard.admit('0-0', t, t + 10_000), false, 'an evicted id replayed');
  assert.equal(guard.admit('fresh-but-old', t + 1000, t + 10_000), false, 'below the floor: refused rather than unchecked');
  assert.equal(guard.admit('9-0', t + 9000, t + 10_000), false, 'a remembered id replayed');
  assert.equal(guard.admit('new', t + 10_000, t + 10_000), true);
});
