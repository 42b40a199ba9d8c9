import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isUnderPrefix, mountPrefixes } from './mount';

test('a prefix matches itself, what is below it and itself with a query; nothing that merely starts the same', () => {
  const prefixes = mountPrefixes(['/api', '/admin/']);
  for (const url of ['/api', '/api/', '/api/routes', '/api?x=1', '/admin', '/admin/users?page=2']) assert.equal(isUnderPrefix(url, prefixes), true, url);
  for (const url of ['/apis', '/api-docs', '/administrator', '/', '/x/api', 'http://h/api', '']) assert.equal(isUnderPrefix(url, prefixes), false, url);
});

test('bad prefixes are refused naming the one at fault', () => {
  assert.throws(() => mountPrefixes([]), /mount\.prefixes must be a non-empty array/);
  assert.throws(() => mountPrefixes(['/api', 'admin']), /mount\.prefixes\[1\]/);
  assert.throws(() => mountPrefixes(['/']), /mount\.prefixes\[0\] must not be '\/'/);
  assert.throws(() => mountPrefixes(['/a?b']), /mount\.prefixes\[0\]/);
});
