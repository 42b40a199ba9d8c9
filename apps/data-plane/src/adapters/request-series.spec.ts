import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestSeriesStore } from './request-series';

test('observations accumulate per route, method and status with per-bucket counts', () => {
  const store = new RequestSeriesStore();
  store.observe('users', '/users/*', 'GET', 200, 3);
  store.observe('users', '/users/*', 'GET', 200, 7);
  store.observe('users', '/users/*', 'GET', 500, 6000);
  store.observe('users', '/users/*', 'POST', 200, 50);
  const series = store.grouped((s) => `${s.routeId} ${s.method} ${s.status}`);
  const get200 = series.find((s) => s.method === 'GET' && s.status === '200');
  assert.equal(get200?.count, 2);
  assert.equal(get200?.sumMs, 10);
  assert.deepEqual([...(get200?.buckets ?? [])], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  const get500 = series.find((s) => s.status === '500');
  assert.deepEqual([...(get500?.buckets ?? [])], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 'over 5000 ms lands in +Inf');
  assert.equal(series.length, 3);
});

test('a route id whose pattern changed is another http_* series, and counts survive (monotonic counters)', () => {
  const store = new RequestSeriesStore();
  store.observe('r1', '/old/*', 'GET', 200, 1);
  store.observe('r1', '/new/*', 'GET', 200, 1);
  store.observe('r1', '/new/*', 'GET', 200, 1);
  const byPattern = store.grouped((s) => s.routePattern);
  assert.deepEqual(byPattern.map((s) => [s.routePattern, s.count]).sort(), [['/new/*', 2], ['/old/*', 1]]);
  const byId = store.grouped((s) => s.routeId);
  assert.deepEqual(byId.map((s) => [s.routeId, s.count]), [['r1', 3]]);
});
