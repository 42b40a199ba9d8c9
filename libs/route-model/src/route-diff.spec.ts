import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { diffRoutes } from './route-diff';
import type { Route } from './route.types';

function route(id: string, patch: Partial<Route> = {}): Route {
  return { id, path: `/${id}`, upstream: 'http://b', enabled: true, description: '', priority: 50, tags: [], stripPath: true, timeout: { request: 5000 }, ...patch };
}

describe('diffRoutes', () => {
  it('finds added, changed and removed routes by id', () => {
    const before = [route('a'), route('b'), route('c')];
    const after = [route('d'), route('b', { priority: 10, timeout: { request: 100 } }), route('a')];
    const diff = diffRoutes(before, after);
    assert.deepEqual(diff.added.map((r) => r.id), ['d']);
    assert.deepEqual(diff.removed.map((r) => r.id), ['c']);
    assert.equal(diff.changed.length, 1);
    assert.equal(diff.changed[0]!.before, before[1]);
    assert.equal(diff.changed[0]!.after, after[1]);
    assert.deepEqual(diff.changed[0]!.fields, ['priority', 'timeout']);
  });

  it('ignores createdAt and updatedAt', () => {
    const diff = diffRoutes([route('a', { createdAt: '2024-01-01T00:00:00Z' })], [route('a', { createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-02T00:00:00Z' })]);
    assert.deepEqual(diff, { added: [], changed: [], removed: [] });
  });

  it('compares nested values structurally and sees added and dropped keys', () => {
    const diff = diffRoutes(
      [route('a', { methods: ['GET'], rateLimit: { enabled: true, max: 1, windowMs: 1, strategy: 'token-bucket', scope: 'ip' } })],
      [route('a', { methods: ['GET', 'POST'], headers: { request: { set: { a: 'b' } } } })],
    );
    assert.deepEqual(diff.changed[0]!.fields, ['headers', 'methods', 'rateLimit']);
    assert.deepEqual(diffRoutes([route('a', { methods: ['GET'] })], [route('a', { methods: ['GET'] })]).changed, []);
  });

  it('treats a key set to undefined as absent', () => {
    assert.deepEqual(diffRoutes([route('a')], [route('a', { rateLimit: undefined })]).changed, []);
  });
});
