import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compilePathPattern } from './path-pattern';
import { rewriteUpstreamPath } from './upstream-path';

function rewrite(pattern: string, path: string, base: string, stripPath = true): string {
  return rewriteUpstreamPath(compilePathPattern(pattern), path, base, stripPath);
}

describe('rewriteUpstreamPath (decision 15)', () => {
  const cases: Array<[string, string, string, string]> = [
    ['/api/*', '/api/users/1', '/v1', '/v1/users/1'],
    ['/api/*', '/api', '/v1', '/v1'],
    ['/api/*', '/api/', '/v1', '/v1/'],
    ['/api/*', '/api/users', '', '/users'],
    ['/api/*', '/api/users', '/', '/users'],
    ['/api/*', '/api', '', '/'],
    ['/api/*', '/api/users', '/v1/', '/v1/users'],
    ['/api/*/resource', '/api/x/resource', '', '/x/resource'],
    ['/api/*/resource', '/api/x/resource', '/svc', '/svc/x/resource'],
    ['/exact/path', '/exact/path', '/x', '/x'],
    ['/exact/path', '/exact/path', '', '/'],
    ['/exact/path', '/exact/path', '/', '/'],
    ['/*', '/anything/here', '/base', '/base/anything/here'],
    ['/*', '/', '', '/'],
    ['/', '/', '/v1', '/v1'],
    ['/a/b/*', '/a/b/c/d', '/z', '/z/c/d'],
  ];
  for (const [pattern, path, base, expected] of cases) {
    it(`${pattern} ${path} + '${base}' -> ${expected}`, () => assert.equal(rewrite(pattern, path, base), expected));
  }

  it('forwards the whole path with stripPath false', () => {
    assert.equal(rewrite('/api/*', '/api/users/1', '/v1', false), '/v1/api/users/1');
    assert.equal(rewrite('/api/*', '/api/users/1', '', false), '/api/users/1');
    assert.equal(rewrite('/api/*', '/api/users/1', '/v1/', false), '/v1/api/users/1');
    assert.equal(rewrite('/exact', '/exact', '/', false), '/exact');
  });

  it('does not cut a path the pattern does not match at a segment boundary', () => {
    assert.equal(rewrite('/api/*', '/apix/y', '/v1'), '/v1/apix/y');
  });
});
