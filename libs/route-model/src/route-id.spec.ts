import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileRouteIdBase, fileRouteIds } from './file-route-ids';
import { generateRouteId, ROUTE_ID_PATTERN } from './route-id';

describe('generateRouteId', () => {
  it('is rt_ + 16 base64url characters and matches decision 12', () => {
    for (let i = 0; i < 200; i += 1) {
      const id = generateRouteId();
      assert.match(id, /^rt_[A-Za-z0-9_-]{16}$/);
      assert.match(id, ROUTE_ID_PATTERN);
    }
  });

  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 1000 }, generateRouteId));
    assert.equal(ids.size, 1000);
  });
});

describe('fileRouteIds', () => {
  it('derives readable ids from paths', () => {
    assert.equal(fileRouteIdBase('/api/*'), 'file-api-star');
    assert.equal(fileRouteIdBase('/'), 'file-root');
    assert.equal(fileRouteIdBase('/api/*/resource'), 'file-api-star-resource');
    assert.equal(fileRouteIdBase('/v1.0/items'), 'file-v1_0-items');
  });

  it('keeps long ids within 64 characters and distinct', () => {
    const a = fileRouteIdBase(`/${'a'.repeat(80)}/one`);
    const b = fileRouteIdBase(`/${'a'.repeat(80)}/two`);
    assert.equal(a.length, 64);
    assert.match(a, ROUTE_ID_PATTERN);
    assert.notEqual(a, b);
  });

  it('is stable, numbers repeats in file order and avoids declared ids', () => {
    const routes = [{ path: '/api/*' }, { path: '/api/*', id: 'file-api-star-2' }, { path: '/api/*' }, { path: '/x', id: 'mine' }, 'not an object', { path: '/api/*' }];
    const expected = ['file-api-star', undefined, 'file-api-star-3', undefined, undefined, 'file-api-star-4'];
    assert.deepEqual(fileRouteIds(routes), expected);
    assert.deepEqual(fileRouteIds(routes), expected);
  });

  it('gives a route without a usable path an id too', () => {
    assert.deepEqual(fileRouteIds([{ upstream: 'x' }, { path: 7 }]), ['file-root', 'file-root-2']);
  });
});
