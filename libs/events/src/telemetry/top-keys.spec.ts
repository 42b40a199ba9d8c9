import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from './seeded-random';
import { mergeTopKeys, TopKeys } from './top-keys';

test('keeps the heavy keys of a stream flooded with distinct keys, with bounded memory and honest bounds', () => {
  const top = new TopKeys(20);
  const truth = new Map<string, number>();
  const see = (key: string, rejected = false): void => {
    top.observe(key, rejected);
    truth.set(key, (truth.get(key) ?? 0) + 1);
  };
  for (let i = 0; i < 20_000; i += 1) {
    see(`ip:10.0.${i % 250}.${i % 251}`); // a flood of one-off keys
    if (i % 4 === 0) see('key:heavy-a', i % 8 === 0);
    if (i % 10 === 0) see('key:heavy-b');
  }
  assert.equal(top.size, 20, 'never more than capacity');
  assert.equal(top.total, [...truth.values()].reduce((a, b) => a + b, 0));
  const listed = top.top(2);
  assert.deepEqual(
    listed.map((k) => k.key),
    ['key:heavy-a', 'key:heavy-b'],
  );
  for (const entry of top.top()) {
    const actual = truth.get(entry.key) ?? 0;
    assert.ok(entry.count - entry.error <= actual && actual <= entry.count, `${entry.key}: ${entry.count}-${entry.error} vs ${actual}`);
  }
  const heavyA = listed[0];
  assert.ok(heavyA.rejections <= 2500 && 2500 <= heavyA.rejections + heavyA.error);
});

test('a key seen only until the table is full is counted exactly', () => {
  const top = new TopKeys(3);
  for (const key of ['a', 'b', 'a', 'c', 'a', 'b']) top.observe(key, key === 'c');
  assert.deepEqual(top.top(), [
    { key: 'a', count: 3, rejections: 0, error: 0 },
    { key: 'b', count: 2, rejections: 0, error: 0 },
    { key: 'c', count: 1, rejections: 1, error: 0 },
  ]);
  top.observe('d', false);
  assert.deepEqual(top.top(1), [{ key: 'a', count: 3, rejections: 0, error: 0 }]);
  assert.deepEqual(
    top.top().find((k) => k.key === 'd'),
    { key: 'd', count: 2, rejections: 0, error: 1 },
    'd took the lightest slot (c) and inherited its count as error',
  );
  top.reset();
  assert.deepEqual(top.top(), []);
  assert.equal(top.total, 0);
});

test('rejects a capacity that is not a positive integer', () => {
  assert.throws(() => new TopKeys(0), /capacity/);
  assert.throws(() => new TopKeys(2.5), /capacity/);
});

test('merging adds counts per key across data planes and keeps the heaviest', () => {
  const merged = mergeTopKeys(
    [
      [
        { key: 'ip:a', count: 5, rejections: 1, error: 0 },
        { key: 'ip:b', count: 4, rejections: 0, error: 1 },
      ],
      [
        { key: 'ip:b', count: 3, rejections: 2, error: 0 },
        { key: 'ip:c', count: 1, rejections: 0, error: 0 },
      ],
    ],
    2,
  );
  assert.deepEqual(merged, [
    { key: 'ip:b', count: 7, rejections: 2, error: 1 },
    { key: 'ip:a', count: 5, rejections: 1, error: 0 },
  ]);
});

test("Space-Saving's guarantees hold on skewed random streams: bounds on every kept key, every frequent key kept", () => {
  for (let seed = 1; seed <= 40; seed += 1) {
    const random = seededRandom(seed);
    const capacity = 1 + (seed % 9);
    const top = new TopKeys(capacity);
    const truth = new Map<string, number>();
    for (let i = 0; i < 500; i += 1) {
      const key = `k${Math.floor(30 * random() ** 2)}`;
      top.observe(key, false);
      truth.set(key, (truth.get(key) ?? 0) + 1);
    }
    const kept = new Map(top.top().map((k) => [k.key, k]));
    assert.equal(kept.size, Math.min(capacity, truth.size));
    for (const [key, actual] of truth) {
      const entry = kept.get(key);
      if (entry !== undefined) assert.ok(entry.count - entry.error <= actual && actual <= entry.count, `seed ${seed}, ${key}`);
      else assert.ok(actual <= 500 / capacity, `seed ${seed}: ${key} seen ${actual} times was dropped`);
    }
  }
});
