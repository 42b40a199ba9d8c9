import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compilePathPattern } from './path-pattern';

describe('compilePathPattern', () => {
  it('compiles an exact path', () => {
    assert.deepEqual({ ...compilePathPattern('/exact/path') }, {
      source: '/exact/path',
      kind: 'exact',
      literalPrefix: '/exact/path',
      segments: ['exact', 'path'],
      literalSegmentCount: 2,
      matchesBelow: false,
    });
  });

  it('compiles a prefix pattern', () => {
    const p = compilePathPattern('/prefix/*');
    assert.deepEqual([p.kind, p.literalPrefix, p.literalSegmentCount, p.matchesBelow], ['prefix', '/prefix', 1, true]);
  });

  it('compiles a wildcard pattern', () => {
    const p = compilePathPattern('/api/*/resource');
    assert.deepEqual([p.kind, p.literalPrefix, p.literalSegmentCount, p.matchesBelow], ['wildcard', '/api', 2, false]);
    const q = compilePathPattern('/api/*/items/*');
    assert.deepEqual([q.kind, q.literalPrefix, q.literalSegmentCount, q.matchesBelow], ['wildcard', '/api', 2, true]);
  });

  it('compiles / and /*', () => {
    const root = compilePathPattern('/');
    assert.deepEqual([root.kind, root.literalPrefix, root.segments, root.literalSegmentCount], ['exact', '/', [], 0]);
    const all = compilePathPattern('/*');
    assert.deepEqual([all.kind, all.literalPrefix, all.literalSegmentCount, all.matchesBelow], ['prefix', '', 0, true]);
  });

  it('is frozen', () => {
    assert.ok(Object.isFrozen(compilePathPattern('/a/*')));
    assert.ok(Object.isFrozen(compilePathPattern('/a/*').segments));
  });

  it('throws on an invalid path', () => {
    for (const bad of ['', 'api', '/a//b', '/a/', '/a b', '/../x', '/a/**']) assert.throws(() => compilePathPattern(bad), TypeError, bad);
  });
});
