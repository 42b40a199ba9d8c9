import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shadowedRoutes } from './gateway-roles';

test('routes under the management prefixes are refused in one process, by field; look-alikes are fine', () => {
  const errors = shadowedRoutes(['/backend/*', '/api/*', '/apis/*', '/admin', '/internal/x', '/administrator']);
  assert.deepEqual(
    errors.map((e) => [e.field, e.code]),
    [
      ['routes[1].path', 'RESERVED_PATH'],
      ['routes[3].path', 'RESERVED_PATH'],
      ['routes[4].path', 'RESERVED_PATH'],
    ],
  );
  assert.match(errors[0]?.message ?? '', /\/api\/\* is under \/api, which the management API serves .*--role data-plane/);
});
