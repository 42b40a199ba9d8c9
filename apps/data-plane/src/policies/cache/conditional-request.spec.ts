import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OutgoingHttpHeaders } from 'node:http';
import { clientHasStored, refreshedHeaders, setRevalidationHeaders } from './conditional-request';

test('revalidation headers come from the stored validators and replace the client conditionals', () => {
  const headers: OutgoingHttpHeaders = { 'if-none-match': '"client"', 'if-range': '"x"', accept: 'a' };
  setRevalidationHeaders(headers, { etag: '"v1"', 'last-modified': 'Fri, 27 Nov 2026 08:00:00 GMT' });
  assert.deepEqual(headers, { accept: 'a', 'if-none-match': '"v1"', 'if-modified-since': 'Fri, 27 Nov 2026 08:00:00 GMT' });
  const noValidator: OutgoingHttpHeaders = { 'if-modified-since': 'x' };
  setRevalidationHeaders(noValidator, {});
  assert.deepEqual(noValidator, {});
});

test('If-None-Match: weak comparison, lists and *; it takes precedence over If-Modified-Since', () => {
  const stored = { etag: 'W/"v1"', 'last-modified': 'Fri, 27 Nov 2026 08:00:00 GMT' };
  assert.equal(clientHasStored({ 'if-none-match': '"v1"' }, stored), true);
  assert.equal(clientHasStored({ 'if-none-match': '"v0", W/"v1"' }, stored), true);
  assert.equal(clientHasStored({ 'if-none-match': '*' }, stored), true);
  assert.equal(clientHasStored({ 'if-none-match': '"v2"' }, stored), false);
  assert.equal(clientHasStored({ 'if-none-match': '"v2"', 'if-modified-since': 'Fri, 27 Nov 2026 09:00:00 GMT' }, stored), false);
  assert.equal(clientHasStored({ 'if-none-match': '"v1"' }, {}), false);
  assert.equal(clientHasStored({}, stored), false);
});

test('If-Modified-Since holds when the stored Last-Modified is not later; bad dates never hold', () => {
  const stored = { 'last-modified': 'Fri, 27 Nov 2026 08:00:00 GMT' };
  assert.equal(clientHasStored({ 'if-modified-since': 'Fri, 27 Nov 2026 08:00:00 GMT' }, stored), true);
  assert.equal(clientHasStored({ 'if-modified-since': 'Fri, 27 Nov 2026 07:59:59 GMT' }, stored), false);
  assert.equal(clientHasStored({ 'if-modified-since': 'yesterday' }, stored), false);
  assert.equal(clientHasStored({ 'if-modified-since': 'Fri, 27 Nov 2026 08:00:00 GMT' }, {}), false);
});

test('a 304 updates the stored fields it carries, never Content-Length or per-reply fields', () => {
  const stored = { 'content-type': 'application/json', 'content-length': 10, etag: '"v1"', 'cache-control': 'max-age=1', 'x-kept': 'k' };
  const refreshed = refreshedHeaders(stored, { 'cache-control': 'max-age=60', etag: '"v1"', 'content-length': '0', age: '5', date: 'd', 'x-new': 'n' });
  assert.deepEqual(refreshed, { 'content-type': 'application/json', 'content-length': 10, etag: '"v1"', 'cache-control': 'max-age=60', 'x-kept': 'k', 'x-new': 'n' });
  assert.equal(stored['cache-control'], 'max-age=1', 'the stored object is not changed in place');
});
