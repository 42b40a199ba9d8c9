import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { storeLocation } from './store-location';

test('a store location names the database, never its credentials', () => {
  assert.equal(storeLocation({ kind: 'postgres', url: 'postgres://gw:s3cret@db.internal:6543/gateway?sslmode=require' }), 'postgres://db.internal:6543/gateway');
  assert.equal(storeLocation({ kind: 'postgres', url: 'postgresql://gw@db.internal/gateway' }), 'postgres://db.internal:5432/gateway');
  assert.equal(storeLocation({ kind: 'sqlite', file: 'data/gateway.sqlite' }), `sqlite:${path.resolve('data/gateway.sqlite')}`);
});
