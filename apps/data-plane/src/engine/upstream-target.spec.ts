import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Route } from '@gateway/route-model';
import { UpstreamPools } from './upstream-target';

const route = (port: number, path: string, connect?: number): Route =>
  ({ id: path, upstream: `http://127.0.0.1:${port}${path}`, timeout: connect === undefined ? { request: 5000 } : { request: 5000, connect } }) as Route;

test('routes to one origin share its pool and timeouts; each keeps its own path', () => {
  const pools = new UpstreamPools();
  const a = pools.targetFor(route(9, '/a'), undefined);
  const b = pools.targetFor(route(9, '/b/c'), undefined);
  assert.equal(a.pool, b.pool);
  assert.equal(a.timeouts, b.timeouts);
  assert.deepEqual([a.origin, a.hostHeader, a.hostname, a.port, a.basePath, b.basePath], ['http://127.0.0.1:9', '127.0.0.1:9', '127.0.0.1', 9, '/a', '/b/c']);
  const slow = pools.targetFor(route(9, '/d', 2000), undefined);
  assert.notEqual(slow.timeouts, a.timeouts);
  assert.equal(slow.timeouts.connectMs, 2000);
  pools.destroy();
});

test('a reload drops a pool no resolved route uses only once its connections are gone: a route resolved later finds it warm', async () => {
  const server = http.createServer({ keepAliveTimeout: 10_000 }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const pools = new UpstreamPools();
  try {
    const pool = pools.targetFor(route(port, '/a'), undefined).pool;
    await new Promise<void>((resolve, reject) => {
      pool.request({ method: 'GET', path: '/a', headers: [] }, { onResponse: () => undefined, onData: () => undefined, onEnd: () => resolve(), onError: reject });
    });
    assert.deepEqual(pool.stats, { open: 1, idle: 1, queued: 0 });
    // No route of the new table resolved its target yet: the pool holds a warm connection, so it stays.
    pools.prune(new Set());
    assert.equal(pools.targetFor(route(port, '/a'), undefined).pool, pool);
    assert.equal(pool.stats.idle, 1);
    pool.closeIdle();
    // The socket's close event takes the connection off the pool's books.
    while (pool.stats.open > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    pools.prune(new Set());
    assert.notEqual(pools.targetFor(route(port, '/a'), undefined).pool, pool, 'a pool without connections is dropped');
  } finally {
    pools.destroy();
    server.closeAllConnections();
    server.close();
  }
});
