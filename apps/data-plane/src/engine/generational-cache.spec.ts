import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GenerationalCache } from './generational-cache';

describe('GenerationalCache', () => {
  it('keeps the newest one to two generations and drops the oldest generation whole', () => {
    const cache = new GenerationalCache<string, number>(2);
    for (const [i, key] of ['a', 'b', 'c', 'd', 'e'].entries()) cache.set(key, i);
    // a, b filled the first generation; c, d the second (a, b then previous); e started a third.
    assert.deepEqual(['a', 'b', 'c', 'd', 'e'].map((key) => cache.get(key)), [undefined, undefined, 2, 3, 4]);
  });

  it('a newer value shadows an older one and delete removes both', () => {
    const cache = new GenerationalCache<string, number>(1);
    cache.set('k', 1);
    cache.set('k', 2);
    assert.equal(cache.get('k'), 2);
    cache.delete('k');
    assert.equal(cache.get('k'), undefined);
    cache.set('x', 1);
    cache.clear();
    assert.equal(cache.get('x'), undefined);
  });

  it('getOrAdd: one derived value per key while it recurs, never more entries than two generations', () => {
    let derived = 0;
    const cache = new GenerationalCache<string, string>(2);
    const derive = (key: string): string => {
      derived += 1;
      return `k:${key}`;
    };
    assert.equal(cache.getOrAdd('a', derive), 'k:a');
    assert.equal(cache.getOrAdd('a', derive), 'k:a');
    assert.equal(derived, 1, 'a recurring key is derived once');
    for (const key of ['b', 'c', 'd', 'e', 'f']) assert.equal(cache.getOrAdd(key, derive), `k:${key}`);
    assert.ok(cache.size <= 4, `size ${cache.size}`);
    assert.equal(cache.getOrAdd('a', derive), 'k:a', 'a key forgotten past the bound is derived again, the same');
    assert.equal(derived, 7);
  });
});
