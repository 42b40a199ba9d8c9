import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileExcludePaths, excludeFields } from './json-exclude';
import { applyQueryOverrides, isJsonContentType } from './transform.policy';

test('query overrides: same-name pairs dropped (decoded, + as space), others kept byte for byte', () => {
  const names = new Set(['v', 'a b']);
  assert.equal(applyQueryOverrides('/p', names, 'v=2'), '/p?v=2');
  assert.equal(applyQueryOverrides('/p?v=1&x=%2F&a+b=1&a%20b=2&&v', names, 'v=2'), '/p?x=%2F&v=2');
  assert.equal(applyQueryOverrides('/p?bad=%E0%A4%A', names, 'v=2'), '/p?bad=%E0%A4%A&v=2');
});

test('JSON content types: application/json and +json suffixes only', () => {
  for (const t of ['application/json', 'application/json; charset=utf-8', 'application/problem+json', 'APPLICATION/JSON']) assert.ok(isJsonContentType(t), t);
  for (const t of ['text/plain', 'application/jsonp', 'text/json', undefined, 'application/x-ndjson']) assert.ok(!isJsonContentType(t), String(t));
});

test('exclude: top level, nested, through arrays; missing paths and scalars are left alone', () => {
  const doc = { a: 1, b: { c: 2, d: { e: 3 } }, list: [{ s: 1, k: 1 }, 5, { k: 2 }], n: null };
  excludeFields(doc, compileExcludePaths(['a', 'b.d.e', 'list.s', 'missing.x', 'n.x', 'b.c.z']));
  assert.deepEqual(doc, { b: { c: 2, d: {} }, list: [{ k: 1 }, 5, { k: 2 }], n: null });
  const top = [{ secret: 1, ok: 1 }];
  excludeFields(top, compileExcludePaths(['secret']));
  assert.deepEqual(top, [{ ok: 1 }]);
});
