import { test } from 'node:test';
import assert from 'node:assert/strict';
import { routeNumberBounds } from './route-field-bounds';

test('routeNumberBounds reads decision 8 bounds from the route schema and names a field without them', () => {
  assert.deepEqual(routeNumberBounds('timeout.request'), { min: 100, max: 60_000 });
  assert.deepEqual(routeNumberBounds('retry.attempts'), { min: 0, max: 10 });
  assert.throws(() => routeNumberBounds('timeout.nothing'), /timeout\.nothing does not exist/);
  assert.throws(() => routeNumberBounds('path'), /path has no numeric bounds/);
});
