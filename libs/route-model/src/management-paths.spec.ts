import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MANAGEMENT_PATH_PREFIXES, reservedPathError } from './management-paths';

test('paths at or under a management prefix are reserved, by field; look-alikes are fine', () => {
  const paths = ['/backend/*', '/api/*', '/apis/*', '/admin', '/internal/x', '/administrator', '/', '/*'];
  const errors = paths.map((p, i) => reservedPathError(p, `routes[${i}].path`, MANAGEMENT_PATH_PREFIXES)).filter((e) => e !== undefined);
  assert.deepEqual(
    errors.map((e) => [e.field, e.code]),
    [
      ['routes[1].path', 'RESERVED_PATH'],
      ['routes[3].path', 'RESERVED_PATH'],
      ['routes[4].path', 'RESERVED_PATH'],
    ],
  );
  assert.match(errors[0]?.message ?? '', /^\/api\/\* is under \/api, which the management API serves .*--role data-plane$/);
});

test('nothing is reserved where no prefix is taken (a data plane of its own)', () => {
  assert.equal(reservedPathError('/api/*', 'path', []), undefined);
});
