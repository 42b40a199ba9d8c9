import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VERSION_HEADERS } from '../../engine/version-headers';
import { withRateLimitHeaders } from './rate-limit-headers';

const SPEC_7_4 = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99', 'x-ratelimit-reset': '1764300001' };

test('from the version headers: the fields of their spread, in its order, in a new object', () => {
  const headers = withRateLimitHeaders(VERSION_HEADERS as Record<string, string>, '100', '99', '1764300001');
  const spread = { ...VERSION_HEADERS, ...SPEC_7_4 };
  assert.deepEqual(headers, spread);
  assert.deepEqual(Object.keys(headers), Object.keys(spread));
  assert.notEqual(headers, VERSION_HEADERS);
  assert.equal(Object.isFrozen(headers), false);
});

test('from any other base (or none): copied, the base left as it was', () => {
  const base = { 'x-api-version': '1.0.0', 'access-control-allow-origin': '*' };
  const headers = withRateLimitHeaders(base, '100', '99', '1764300001');
  assert.deepEqual(headers, { ...base, ...SPEC_7_4 });
  assert.deepEqual(base, { 'x-api-version': '1.0.0', 'access-control-allow-origin': '*' });
  assert.deepEqual(withRateLimitHeaders(undefined, '100', '99', '1764300001'), SPEC_7_4);
});
