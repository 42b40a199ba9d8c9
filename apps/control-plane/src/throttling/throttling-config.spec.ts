import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_THROTTLING, parseThrottlingConfig } from './throttling-config';

test('defaults are spec 8 / decision 21', () => {
  const problems: Array<{ variable: string; message: string }> = [];
  assert.deepEqual(parseThrottlingConfig({}, problems), DEFAULT_THROTTLING);
  assert.deepEqual(DEFAULT_THROTTLING, {
    general: { max: 100, windowMs: 60_000 },
    admin: { max: 60, windowMs: 60_000 },
    credentials: { max: 5, windowMs: 900_000 },
  });
  assert.deepEqual(problems, []);
});

test('each tier is configurable; bad values are named', () => {
  const problems: Array<{ variable: string; message: string }> = [];
  const config = parseThrottlingConfig({ API_RATE_LIMIT_ADMIN_MAX: '7', API_RATE_LIMIT_CREDENTIALS_WINDOW_SECONDS: '30', API_RATE_LIMIT_GENERAL_MAX: '0', API_RATE_LIMIT_GENERAL_WINDOW_SECONDS: '1.5' }, problems);
  assert.equal(config.admin.max, 7);
  assert.equal(config.credentials.windowMs, 30_000);
  assert.equal(config.general.max, 100);
  assert.deepEqual(problems.map((p) => p.variable), ['API_RATE_LIMIT_GENERAL_MAX', 'API_RATE_LIMIT_GENERAL_WINDOW_SECONDS']);
});
