import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseCache, type CacheEntry } from './response-cache';
import { storableTtl } from './cache-control';

function entry(size: number, now: number, ttl = 1000, vary?: Array<[string, string | undefined]>): CacheEntry {
  return { status: 200, headers: {}, body: Buffer.alloc(size), storedAt: now, expiresAt: now + ttl, upstreamAge: 0, vary, size };
}

test('bounded in bytes: least recently used entries go first; a hit refreshes recency', () => {
  let now = 0;
  const cache = new ResponseCache({ maxBytes: 300, maxEntryBytes: 200, now: () => now });
  assert.ok(cache.set('r', 'a', entry(100, now)));
  assert.ok(cache.set('r', 'b', entry(100, now)));
  assert.ok(cache.get('a', {}) !== undefined);
  assert.ok(cache.set('r', 'c', entry(150, now)));
  assert.equal(cache.get('b', {}), undefined, 'b was least recently used');
  assert.ok(cache.get('a', {}) !== undefined);
  assert.ok(cache.get('c', {}) !== undefined);
  assert.ok(cache.size.bytes <= 300);
  assert.equal(cache.set('r', 'huge', entry(201, now)), false, 'over the per-entry limit');
  now = 2000;
  assert.equal(cache.get('a', {}), undefined, 'expired');
});

test('the per-entry limit defaults to 10 MB and never exceeds the global one', () => {
  assert.equal(new ResponseCache().maxEntryBytes, 10 * 1024 * 1024);
  assert.equal(new ResponseCache({ maxBytes: 1000 }).maxEntryBytes, 1000);
});

test('vary: stored request header values must match', () => {
  const cache = new ResponseCache();
  cache.set('r', 'k', entry(1, Date.now(), 60_000, [['x-lang', 'en']]));
  assert.ok(cache.get('k', { 'x-lang': 'en' }) !== undefined);
  assert.equal(cache.get('k', { 'x-lang': 'de' }), undefined);
  assert.equal(cache.get('k', {}), undefined);
});

test('purge drops one route only; a changed route configuration purges it', () => {
  const cache = new ResponseCache();
  const now = Date.now();
  cache.set('r1', 'r1-a', entry(1, now, 60_000));
  cache.set('r1', 'r1-b', entry(1, now, 60_000));
  cache.set('r2', 'r2-a', entry(1, now, 60_000));
  assert.equal(cache.purge('r1'), 2);
  assert.equal(cache.get('r1-a', {}), undefined);
  assert.ok(cache.get('r2-a', {}) !== undefined);
  cache.retain('r2', 'v1');
  cache.retain('r2', 'v1');
  assert.ok(cache.get('r2-a', {}) !== undefined, 'same configuration keeps entries');
  cache.retain('r2', 'v2');
  assert.equal(cache.get('r2-a', {}), undefined);
});

test('flights: one leader per key; followers learn whether to look again or go upstream', () => {
  const cache = new ResponseCache();
  assert.equal(cache.lead('k'), true);
  assert.equal(cache.lead('k'), false);
  const seen: boolean[] = [];
  cache.wait('k', (stored) => seen.push(stored));
  cache.wait('k', (stored) => seen.push(stored));
  cache.release('k', false);
  assert.deepEqual(seen, [false, false]);
  assert.equal(cache.lead('k'), true, 'released');
  cache.wait('other', (stored) => seen.push(stored));
  assert.deepEqual(seen, [false, false, true], 'no flight: look again at once');
});

test('Cache-Control: never stored directives, s-maxage over max-age, the shorter lifetime wins, Age counts', () => {
  assert.equal(storableTtl({}, 5000), 5000);
  for (const cc of ['no-store', 'private', 'no-cache', 'public, no-store', 'max-age=0', 'max-age=abc']) assert.equal(storableTtl({ 'cache-control': cc }, 5000), 0, cc);
  assert.equal(storableTtl({ 'cache-control': 'max-age=2' }, 5000), 2000);
  assert.equal(storableTtl({ 'cache-control': 'max-age=60' }, 5000), 5000);
  assert.equal(storableTtl({ 'cache-control': 'max-age=1, s-maxage=3' }, 5000), 3000);
  assert.equal(storableTtl({ 'cache-control': 'max-age=3', age: '1' }, 5000), 2000);
  assert.equal(storableTtl({ 'cache-control': 'max-age=3', age: '3' }, 5000), 0);
});
