import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizePath } from './request-target';

test('plain paths are returned untouched (fast path)', () => {
  for (const path of ['/', '/api/users/42', '/a-b_c.d/e', '/api/v1.2/x']) assert.equal(normalizePath(path), path);
});

test('dot segments are resolved as RFC 3986 5.2.4 says', () => {
  const cases: Array<[string, string]> = [
    ['/svc/../x', '/x'],
    ['/svc/./x', '/svc/x'],
    ['/a/b/../../c', '/c'],
    ['/../../etc/passwd', '/etc/passwd'],
    ['/a/b/..', '/a/'],
    ['/a/.', '/a/'],
    ['/a/..', '/'],
    ['/..', '/'],
    ['/a/...', '/a/...'],
    ['/a/..b/c', '/a/..b/c'],
  ];
  for (const [input, expected] of cases) assert.equal(normalizePath(input), expected, input);
});

test('%2e in any case counts as a dot', () => {
  assert.equal(normalizePath('/svc/%2e%2e/x'), '/x');
  assert.equal(normalizePath('/svc/%2E%2e/x'), '/x');
  assert.equal(normalizePath('/svc/.%2E/x'), '/x');
  assert.equal(normalizePath('/svc/%2e/x'), '/svc/x');
});

test('repeated slashes are merged; a trailing slash is kept', () => {
  assert.equal(normalizePath('//api///x'), '/api/x');
  assert.equal(normalizePath('/api/x/'), '/api/x/');
});

test('other escapes are kept as sent', () => {
  assert.equal(normalizePath('/files/a%2Fb'), '/files/a%2Fb');
  assert.equal(normalizePath('/q/%20x'), '/q/%20x');
});

test('backslashes and encoded separators mixed with dots are refused', () => {
  for (const path of ['/svc/..;/admin', '/svc/%2e%2e;/admin', '/svc/..%3b/admin', '/svc/.;x/y', '/a\\b', '/svc/..%2fx', '/svc/..%2Fx', '/svc/%2e%2e%2fx', '/svc/..%5cx', '/svc/x%2f..']) {
    assert.equal(normalizePath(path), undefined, path);
  }
});

test('semicolons elsewhere are ordinary characters', () => {
  assert.equal(normalizePath('/a;b/c'), '/a;b/c');
  assert.equal(normalizePath('/svc/x/../a;v=1'), '/svc/a;v=1');
});
