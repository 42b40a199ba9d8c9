import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterTokenMatches } from './cluster-token';

test('only `Bearer <exact token>` matches', () => {
  const token = 'cluster-token-0123456789';
  assert.equal(clusterTokenMatches(token, `Bearer ${token}`), true);
  for (const header of [undefined, '', 'Bearer', 'Bearer ', `bearer${token}`, `Basic ${token}`, token, `Bearer ${token} `, `Bearer ${token}x`, `Bearer ${token.slice(1)}`]) {
    assert.equal(clusterTokenMatches(token, header), false, String(header));
  }
});
