import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseCache, type CacheEntry } from './response-cache';

function entry(size: number, now: number, ttl = 1000, vary?: Array<[string, string | undefined]>, path = '/x'): CacheEntry {
  return { status: 200, headers: {}, body: Buffer.alloc(size), storedAt: now, expiresAt: now + ttl, keepUntil: now + ttl, mustRevalidate: false, path, upstreamAge: 0, vary, size };
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
  assert.equal(cache.lead('k', '/x'), true);
  assert.equal(cache.lead('k', '/x'), false);
  const seen: boolean[] = [];
  cache.wait('k', (stored) => seen.push(stored));
  cache.wait('k', (stored) => seen.push(stored));
  cache.release('k', false);
  assert.deepEqual(seen, [false, false]);
  assert.equal(cache.lead('k', '/x'), true, 'released');
  cache.wait('other', (stored) => seen.push(stored));
  assert.deepEqual(seen, [false, false, true], 'no flight: look again at once');
});

test('stale entries are returned until keepUntil, then dropped', () => {
  let now = 0;
  const cache = new ResponseCache({ now: () => now });
  cache.set('r', 'k', { ...entry(1, now, 1000), keepUntil: 5000 });
  now = 3000;
  const stale = cache.get('k', {});
  assert.ok(stale !== undefined && stale.expiresAt <= now, 'stale but kept');
  now = 5000;
  assert.equal(cache.get('k', {}), undefined);
  assert.equal(cache.size.entries, 0);
});

test('invalidatePath drops every entry stored for the path, on any route, and only those', () => {
  const cache = new ResponseCache();
  const now = Date.now();
  cache.set('r1', 'r1-items', entry(1, now, 60_000, undefined, '/items'));
  cache.set('r1', 'r1-items-q', entry(1, now, 60_000, undefined, '/items'));
  cache.set('r2', 'r2-items', entry(1, now, 60_000, undefined, '/items'));
  cache.set('r1', 'r1-other', entry(1, now, 60_000, undefined, '/items/1'));
  const stored = cache.get('r2-items', {});
  assert.ok(stored !== undefined && cache.holds('r2-items', stored));
  assert.equal(cache.invalidatePath('/items'), 3);
  assert.equal(cache.holds('r2-items', stored), false);
  assert.equal(cache.get('r1-items', {}), undefined);
  assert.equal(cache.get('r2-items', {}), undefined);
  assert.ok(cache.get('r1-other', {}) !== undefined);
  assert.equal(cache.invalidatePath('/items'), 0);
  cache.delete('r1-other');
  assert.equal(cache.size.entries, 0);
});

test('a flight invalidated while in the air does not store what it brings back', () => {
  const cache = new ResponseCache();
  const now = Date.now();
  assert.equal(cache.lead('k', '/items'), true);
  cache.invalidatePath('/items');
  assert.equal(cache.set('r', 'k', entry(1, now, 60_000, undefined, '/items')), false);
  cache.release('k', false);
  assert.equal(cache.lead('k', '/items'), true);
  assert.equal(cache.set('r', 'k', entry(1, now, 60_000, undefined, '/items')), true, 'a new flight stores again');
});
