import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLeasesConfig } from './leases-config';

test('defaults: a 30-second lease TTL, an hourly route purge', () => {
  const problems: Array<{ variable: string; message: string }> = [];
  assert.deepEqual(parseLeasesConfig({}, problems), { ttlMs: 30_000, routePurgeIntervalMs: 3_600_000 });
  assert.deepEqual(problems, []);
});

test('durations are read from LEASE_TTL and ROUTE_PURGE_INTERVAL', () => {
  const problems: Array<{ variable: string; message: string }> = [];
  assert.deepEqual(parseLeasesConfig({ LEASE_TTL: '1s', ROUTE_PURGE_INTERVAL: '200ms' }, problems), { ttlMs: 1000, routePurgeIntervalMs: 200 });
  assert.deepEqual(problems, []);
});

test('bad values are refused naming the variable', () => {
  const problems: Array<{ variable: string; message: string }> = [];
  parseLeasesConfig({ LEASE_TTL: '10ms', ROUTE_PURGE_INTERVAL: 'often' }, problems);
  assert.deepEqual(problems, [
    { variable: 'LEASE_TTL', message: 'must be a duration such as 15s, 10m or 5d, from 300ms to 1h' },
    { variable: 'ROUTE_PURGE_INTERVAL', message: 'must be a duration such as 15s, 10m or 5d, from 100ms to 7d' },
  ]);
});
