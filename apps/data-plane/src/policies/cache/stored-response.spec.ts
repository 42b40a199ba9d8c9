import { test } from 'node:test';
import assert from 'node:assert/strict';
import { storableHead, toEntry, type StoreRules } from './stored-response';

const rules: StoreRules = { ttl: 10_000, statuses: new Set([200, 503]), staleMs: 30_000, maxEntryBytes: 1000 };
const NOW = 1_000_000;

test('never stored: unlisted statuses, retried 502/503/504, Set-Cookie, Vary: *, a declared body over the limit', () => {
  assert.equal(storableHead(404, {}, rules, 1, NOW), undefined);
  assert.ok(storableHead(503, {}, rules, 1, NOW) !== undefined, 'a listed 503 the gateway did not retry');
  assert.equal(storableHead(503, {}, rules, 2, NOW), undefined, 'the retry policy retried it');
  assert.ok(storableHead(200, {}, rules, 3, NOW) !== undefined, 'a 200 after retries is an answer');
  assert.equal(storableHead(200, { 'set-cookie': 'a=1' }, rules, 1, NOW), undefined);
  assert.equal(storableHead(200, { vary: 'Accept, *' }, rules, 1, NOW), undefined);
  assert.equal(storableHead(200, { 'content-length': '1001' }, rules, 1, NOW), undefined);
});

test('the stored head drops per-reply fields and keeps the upstream Age apart', () => {
  const head = storableHead(200, { age: '3', date: 'd', 'x-cache': 'HIT', 'x-correlation-id': 'c', etag: '"a"', vary: 'X-Lang' }, rules, 1, NOW);
  assert.deepEqual(head?.headers, { etag: '"a"', vary: 'X-Lang' });
  assert.equal(head?.upstreamAge, 3);
  assert.deepEqual(head?.vary, ['x-lang']);
});

test('an entry is kept stale for the stale windows, or one more ttl when it has a validator, whichever is longer', () => {
  const plain = storableHead(200, { 'cache-control': 'max-age=2' }, rules, 1, NOW);
  const entry = toEntry(plain!, Buffer.from('body'), { 'x-lang': 'en' }, '/p', 'k', rules, NOW);
  assert.equal(entry.expiresAt, NOW + 2000);
  assert.equal(entry.keepUntil, NOW + 2000 + 30_000);
  assert.equal(entry.headers['content-length'], 4);
  const noWindows: StoreRules = { ...rules, staleMs: 0 };
  assert.equal(toEntry(plain!, Buffer.alloc(0), {}, '/p', 'k', noWindows, NOW).keepUntil, NOW + 2000, 'nothing to serve it for: dropped when stale');
  const validated = storableHead(200, { 'cache-control': 'no-cache', etag: '"a"' }, rules, 1, NOW);
  const revalidatable = toEntry(validated!, Buffer.alloc(0), {}, '/p', 'k', noWindows, NOW);
  assert.equal(revalidatable.expiresAt, NOW, 'no-cache: stale at once');
  assert.equal(revalidatable.keepUntil, NOW + 10_000);
  assert.equal(revalidatable.mustRevalidate, true);
  const varied = toEntry(storableHead(200, { vary: 'X-Lang' }, rules, 1, NOW)!, Buffer.alloc(0), { 'x-lang': 'en' }, '/p', 'k', rules, NOW);
  assert.deepEqual(varied.vary, [['x-lang', 'en']]);
});
