import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '../common/domain-error';
import { mergeRoutePatch, parseRouteBody } from './route-input';

function fieldsOf(fn: () => unknown): { code: string; fields: string[] } {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof DomainError);
    return { code: error.code, fields: (error.details?.['fields'] as Array<{ field: string }>).map((f) => f.field) };
  }
  assert.fail('expected a DomainError');
}

const stored = parseRouteBody({ id: 'r1', path: '/a/*', upstream: 'http://a.example/v1', timeout: { request: 2000, connect: 300 }, retry: { attempts: 4 }, rateLimit: { max: 5 }, tags: ['x'] });

test('server-set fields are dropped, source is always api', () => {
  const route = parseRouteBody({ path: '/x', upstream: 'http://x.example', source: 'file', createdAt: 'yesterday', updatedAt: 1, deletedAt: null });
  assert.equal(route.source, 'api');
  assert.equal(route.createdAt, undefined);
});

test('the most specific code leads when several fields fail; every field is listed', () => {
  assert.deepEqual(fieldsOf(() => parseRouteBody({ upstream: 'bad', path: 'bad', zz: 1 })), { code: 'INVALID_PATH', fields: ['path', 'upstream', 'zz'] });
  assert.deepEqual(fieldsOf(() => parseRouteBody({ zz: 1, path: '/ok', upstream: 'bad' })), { code: 'INVALID_URL', fields: ['upstream', 'zz'] });
  assert.deepEqual(fieldsOf(() => parseRouteBody([])), { code: 'VALIDATION_ERROR', fields: ['(body)'] });
});

test('a body may repeat the id of the URL but not change it', () => {
  assert.equal(parseRouteBody({ id: 'r1', path: '/x', upstream: 'http://x.example' }, 'r1').id, 'r1');
  assert.deepEqual(fieldsOf(() => parseRouteBody({ id: 'r2', path: '/x', upstream: 'http://x.example' }, 'r1')), { code: 'VALIDATION_ERROR', fields: ['id'] });
});

test('PATCH merges objects, replaces arrays, null resets to the default', () => {
  const patched = mergeRoutePatch(stored, { timeout: { request: 3000 }, tags: ['y', 'z'], description: 'd' });
  assert.deepEqual(patched.timeout, { request: 3000, connect: 300 });
  assert.deepEqual(patched.tags, ['y', 'z']);
  assert.equal(patched.upstream, 'http://a.example/v1');
  const reset = mergeRoutePatch(stored, { tags: null, rateLimit: null });
  assert.deepEqual(reset.tags, []);
  assert.equal(reset.rateLimit, undefined);
});

test('PATCH with variant B fields replaces their canonical twins instead of conflicting', () => {
  const patched = mergeRoutePatch(stored, { target: 'http://b.example', retryAttempts: 0, timeout: 900, rateLimiting: { requests: 7, window: 2 } });
  assert.equal(patched.upstream, 'http://b.example');
  assert.equal(patched.retry?.attempts, 0);
  assert.equal(patched.retry?.enabled, false);
  assert.deepEqual(patched.timeout, { request: 900, connect: 300 });
  assert.equal(patched.rateLimit?.max, 7);
  assert.equal(patched.rateLimit?.windowMs, 2000);
});

test('PATCH keeps a stored breaker threshold of 1 % or less: the stored percent is not read again as a fraction (decision 7)', () => {
  const fine = parseRouteBody({ id: 'cb', path: '/cb', upstream: 'http://cb.example', circuitBreaker: { threshold: 0.005 } });
  assert.equal(fine.circuitBreaker?.threshold, 0.5, 'the fraction 0.005 is stored as 0.5 percent');
  assert.equal(mergeRoutePatch(fine, { description: 'd' }).circuitBreaker?.threshold, 0.5);
  assert.equal(mergeRoutePatch(fine, { circuitBreaker: { timeout: 1000 } }).circuitBreaker?.threshold, 0.5);
  assert.equal(mergeRoutePatch(fine, { circuitBreaker: { threshold: 0.5 } }).circuitBreaker?.threshold, 50, 'a value sent is input: 0.5 is a fraction');
});

test('PATCH results are validated as a whole; the id cannot change', () => {
  assert.deepEqual(fieldsOf(() => mergeRoutePatch(stored, { path: 'nope', retry: { attempts: 99 } })), { code: 'INVALID_PATH', fields: ['path', 'retry.attempts'] });
  assert.deepEqual(fieldsOf(() => mergeRoutePatch(stored, { id: 'other' })).fields, ['id']);
});
