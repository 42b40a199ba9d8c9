import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestSeriesStore } from './request-series';
import { BUCKET_COUNT, type SeriesFamily } from './series-family';

/** Every series of a family as [labels, count, sumMs, per-bucket counts]. */
function dump(family: SeriesFamily): Array<[string, number, number, number[]]> {
  const rows: Array<[string, number, number, number[]]> = [];
  for (let slot = 0; slot < family.size; slot += 1) {
    rows.push([family.labels(slot), family.count(slot), family.sumMs(slot), Array.from({ length: BUCKET_COUNT }, (_, b) => family.bucket(slot, b))]);
  }
  return rows;
}

test('observations accumulate per route, method and status with per-bucket counts', () => {
  const store = new RequestSeriesStore();
  store.observe('users', '/users/*', 'GET', 200, 3);
  store.observe('users', '/users/*', 'GET', 200, 7);
  store.observe('users', '/users/*', 'GET', 500, 6000);
  store.observe('users', '/users/*', 'POST', 200, 50);
  store.observe('users', '/users/*', 'GET', 200, 5);
  assert.deepEqual(dump(store.byId), [
    ['route="users",method="GET",status="200"', 3, 15, [2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
    ['route="users",method="GET",status="500"', 1, 6000, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]],
    ['route="users",method="POST",status="200"', 1, 50, [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]],
  ]);
  assert.deepEqual(
    dump(store.byPattern).map(([labels, count]) => [labels, count]),
    [
      ['method="GET",route="/users/*",status="200"', 3],
      ['method="GET",route="/users/*",status="500"', 1],
      ['method="POST",route="/users/*",status="200"', 1],
    ],
  );
});

test('a route id whose pattern changed is another http_* series, and counts survive (monotonic counters)', () => {
  const store = new RequestSeriesStore();
  store.observe('r1', '/old/*', 'GET', 200, 1);
  store.observe('r1', '/new/*', 'GET', 200, 1);
  store.observe('r1', '/new/*', 'GET', 200, 1);
  assert.deepEqual(dump(store.byPattern).map(([labels, count]) => [labels, count]), [
    ['method="GET",route="/old/*",status="200"', 1],
    ['method="GET",route="/new/*",status="200"', 2],
  ]);
  assert.deepEqual(dump(store.byId).map(([labels, count]) => [labels, count]), [['route="r1",method="GET",status="200"', 3]]);
});

test('two route ids with one pattern share an http_* series and keep their own gateway_* series', () => {
  const store = new RequestSeriesStore();
  store.observe('a', '/same/*', 'GET', 200, 1);
  store.observe('b', '/same/*', 'GET', 200, 2);
  assert.deepEqual(dump(store.byPattern).map(([labels, count, sum]) => [labels, count, sum]), [['method="GET",route="/same/*",status="200"', 2, 3]]);
  assert.deepEqual(dump(store.byId).map(([labels, count]) => [labels, count]), [
    ['route="a",method="GET",status="200"', 1],
    ['route="b",method="GET",status="200"', 1],
  ]);
});

test('label values are escaped once, when the series is created', () => {
  const store = new RequestSeriesStore();
  store.observe('q"uote\\d\nid', '/ünï/"*"', 'GET', 200, 1);
  assert.equal(store.byId.labels(0), 'route="q\\"uote\\\\d\\nid",method="GET",status="200"');
  assert.equal(store.byPattern.labels(0), 'method="GET",route="/ünï/\\"*\\"",status="200"');
});

test('thousands of series grow the arenas without mixing up values or labels', () => {
  const store = new RequestSeriesStore();
  for (let i = 0; i < 5000; i += 1) for (let k = 0; k <= i % 3; k += 1) store.observe(`route-${i}`, `/p${i}/*`, 'GET', 200, i % 7000);
  assert.equal(store.byId.size, 5000);
  for (const i of [0, 63, 64, 65, 1234, 4999]) {
    assert.equal(store.byId.labels(i), `route="route-${i}",method="GET",status="200"`);
    assert.equal(store.byId.count(i), (i % 3) + 1);
    assert.equal(store.byPattern.sumMs(i), ((i % 3) + 1) * (i % 7000));
  }
});
