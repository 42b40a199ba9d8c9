import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendIndex, appendKey, fieldPathSegments, joinFieldPath } from './field-path';

describe('fieldPathSegments', () => {
  it('splits dotted paths with indexes', () => {
    assert.deepEqual(fieldPathSegments('routes[2].timeout.request'), ['routes', 2, 'timeout', 'request']);
    assert.deepEqual(fieldPathSegments('circuitBreaker.errorStatuses[1]'), ['circuitBreaker', 'errorStatuses', 1]);
    assert.deepEqual(fieldPathSegments('a[0][1].b'), ['a', 0, 1, 'b']);
  });

  it('reads quoted keys', () => {
    assert.deepEqual(fieldPathSegments('headers.request["Bad Name"]'), ['headers', 'request', 'Bad Name']);
    assert.deepEqual(fieldPathSegments('x["a.b[0]"].y'), ['x', 'a.b[0]', 'y']);
    assert.deepEqual(fieldPathSegments('x["say \\"hi\\""]'), ['x', 'say "hi"']);
  });

  it('reads the root as no segments', () => {
    assert.deepEqual(fieldPathSegments(''), []);
    assert.deepEqual(fieldPathSegments('(root)'), []);
  });

  it('round-trips the paths the validators build', () => {
    const path = appendKey(appendIndex(appendKey(appendKey('', 'routes'), 'x'), 3), 'Bad Name');
    assert.equal(path, 'routes.x[3]["Bad Name"]');
    assert.deepEqual(fieldPathSegments(path), ['routes', 'x', 3, 'Bad Name']);
    assert.deepEqual(fieldPathSegments(appendKey('headers', 'X-Request-Id')), ['headers', 'X-Request-Id']);
  });
});

describe('joinFieldPath', () => {
  it('joins a prefix and a relative path', () => {
    assert.equal(joinFieldPath('routes[3]', 'timeout.request'), 'routes[3].timeout.request');
    assert.equal(joinFieldPath('routes[3]', ''), 'routes[3]');
    assert.equal(joinFieldPath('', 'path'), 'path');
    assert.equal(joinFieldPath('', ''), '(root)');
    assert.equal(joinFieldPath('routes', '[2]'), 'routes[2]');
  });
});
