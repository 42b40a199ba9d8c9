import { test } from 'node:test';
import assert from 'node:assert/strict';
import { responseFreshness } from './cache-control';

const NOW = Date.parse('Fri, 27 Nov 2026 09:00:00 GMT');
const fresh = (headers: Record<string, string>, ttl = 5000): number | undefined => responseFreshness(headers, ttl, NOW)?.freshMs;

test('never stored: no-store, private; stale on arrival or no-cache without a validator', () => {
  assert.equal(fresh({}), 5000);
  for (const cc of ['no-store', 'private', 'no-cache', 'public, no-store', 'max-age=0', 'max-age=abc', 'max-age=-1']) assert.equal(fresh({ 'cache-control': cc }), undefined, cc);
});

test('s-maxage over max-age over Expires; the shorter of it and the ttl wins; the upstream Age counts', () => {
  assert.equal(fresh({ 'cache-control': 'max-age=2' }), 2000);
  assert.equal(fresh({ 'cache-control': 'max-age=60' }), 5000);
  assert.equal(fresh({ 'cache-control': 'max-age=1, s-maxage=3' }), 3000);
  assert.equal(fresh({ 'cache-control': 'max-age=3', age: '1' }), 2000);
  assert.equal(fresh({ 'cache-control': 'max-age=3', age: '3' }), undefined);
  assert.equal(fresh({ 'cache-control': 'max-age=4', expires: 'Fri, 27 Nov 2026 09:00:01 GMT' }), 4000, 'max-age wins over Expires');
});

test('Expires is read relative to Date (or the clock without one); an invalid Expires is already stale', () => {
  assert.equal(fresh({ date: 'Fri, 27 Nov 2026 08:00:00 GMT', expires: 'Fri, 27 Nov 2026 08:00:02 GMT' }), 2000, 'relative to Date, not to the clock');
  assert.equal(fresh({ expires: 'Fri, 27 Nov 2026 09:00:03 GMT' }), 3000);
  assert.equal(fresh({ expires: 'Fri, 27 Nov 2026 10:00:00 GMT' }), 5000, 'a longer Expires does not extend the ttl');
  assert.equal(fresh({ expires: '0' }), undefined);
  assert.equal(fresh({ expires: 'Fri, 27 Nov 2026 08:59:00 GMT' }), undefined);
});

test('a response with a validator is kept for revalidation even when stale on arrival or no-cache', () => {
  assert.deepEqual(responseFreshness({ 'cache-control': 'no-cache', etag: '"a"' }, 5000, NOW), { freshMs: 0, mustRevalidate: true });
  assert.deepEqual(responseFreshness({ 'cache-control': 'max-age=0', 'last-modified': 'Fri, 27 Nov 2026 08:00:00 GMT' }, 5000, NOW), { freshMs: 0, mustRevalidate: false });
  assert.deepEqual(responseFreshness({ expires: '0', etag: 'W/"a"' }, 5000, NOW), { freshMs: 0, mustRevalidate: false });
});

test('must-revalidate, proxy-revalidate and s-maxage forbid serving stale', () => {
  for (const cc of ['max-age=2, must-revalidate', 'proxy-revalidate', 's-maxage=2', 'MUST-REVALIDATE']) assert.equal(responseFreshness({ 'cache-control': cc }, 5000, NOW)?.mustRevalidate, true, cc);
  assert.equal(responseFreshness({ 'cache-control': 'max-age=2' }, 5000, NOW)?.mustRevalidate, false);
});
