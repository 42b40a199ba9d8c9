import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_CODES, messageOf, statusOf } from './error-codes';

test('spec 7.2 messages word for word, with their statuses', () => {
  const expected: Array<[Parameters<typeof statusOf>[0], number, string]> = [
    ['INVALID_PATH', 400, 'Invalid path format'],
    ['INVALID_URL', 400, 'Invalid URL'],
    ['PATH_EXISTS', 409, 'Path already exists'],
    ['ROUTE_NOT_FOUND', 404, 'Route not found'],
    ['UNAUTHORIZED', 401, 'Unauthorized'],
    ['FORBIDDEN', 403, 'Forbidden'],
  ];
  for (const [code, status, message] of expected) {
    assert.equal(statusOf(code), status, code);
    assert.deepEqual(messageOf(code), { text: message, fixed: true });
  }
});

test('every code maps to an HTTP error status and a message', () => {
  for (const code of ERROR_CODES) {
    const status = statusOf(code);
    assert.ok(status >= 400 && status <= 599, code);
    assert.ok(messageOf(code).text.length > 0, code);
  }
});
