import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withCreationDefaults } from './route-creation-defaults';

const DEFAULTS = { requestTimeoutMs: 12_000, retryAttempts: 1 };

test('left out: the configured defaults fill timeout.request and retry.attempts', () => {
  assert.deepEqual(withCreationDefaults({ path: '/a' }, DEFAULTS), { path: '/a', timeout: { request: 12_000 }, retry: { attempts: 1 } });
  assert.deepEqual(withCreationDefaults({ timeout: { connect: 500 }, retry: { enabled: true } }, DEFAULTS), { timeout: { connect: 500, request: 12_000 }, retry: { enabled: true, attempts: 1 } });
});

test('given in either variant, the body wins', () => {
  assert.deepEqual(withCreationDefaults({ timeout: 3000, retryAttempts: 5 }, DEFAULTS), { timeout: 3000, retryAttempts: 5 });
  assert.deepEqual(withCreationDefaults({ timeout: { request: 2000 }, retry: { attempts: 0 } }, DEFAULTS), { timeout: { request: 2000 }, retry: { attempts: 0 } });
  // Not an object: left for the route model to refuse, as before.
  assert.equal(withCreationDefaults('text', DEFAULTS), 'text');
  assert.deepEqual(withCreationDefaults({ timeout: 'soon' }, DEFAULTS), { timeout: 'soon', retry: { attempts: 1 } });
});
