import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KNOWN_METHODS, spanNamesOf } from './server-span';

test('span names: `{method} {route}` for the RFC 9110 methods, `HTTP {route}` for any other, one string each', () => {
  const names = spanNamesOf('/api/orders/:id');
  for (const method of KNOWN_METHODS) assert.equal(names(method), `${method} /api/orders/:id`);
  for (const method of ['PROPFIND', 'get', '', 'GET ']) assert.equal(names(method), 'HTTP /api/orders/:id', method);
  assert.equal(spanNamesOf('unmatched')('DELETE'), 'DELETE unmatched');
  assert.equal(spanNamesOf('/ü/*')('PATCH'), 'PATCH /ü/*');
});
