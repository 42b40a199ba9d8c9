import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '../common/domain-error';
import { validateReturnUrl } from './saml-return-url';

const ALLOWED = ['https://ui.test/admin', 'https://other.test/'];

function refusal(value: unknown): DomainError {
  try {
    validateReturnUrl(value, ALLOWED);
  } catch (error) {
    assert.ok(error instanceof DomainError);
    return error;
  }
  assert.fail(`${String(value)} was accepted`);
}

test('same-origin paths and URLs under an allow-listed entry pass', () => {
  assert.equal(validateReturnUrl('/admin/routes?x=1', ALLOWED), '/admin/routes?x=1');
  assert.equal(validateReturnUrl('https://ui.test/admin', ALLOWED), 'https://ui.test/admin');
  assert.equal(validateReturnUrl('https://ui.test/admin/routes', ALLOWED), 'https://ui.test/admin/routes');
  assert.equal(validateReturnUrl('https://other.test/anything', ALLOWED), 'https://other.test/anything');
});

test('open redirects are refused with VALIDATION_ERROR naming returnUrl', () => {
  for (const value of ['//evil.test', '/\\evil.test', 'https://evil.test/admin', 'https://ui.test/administrator', 'https://ui.test.evil.test/admin', 'http://ui.test/admin', 'https://user:pw@ui.test/admin', 'javascript:alert(1)', '/admin\n', '', 42, 'x'.repeat(2049)]) {
    const error = refusal(value);
    assert.equal(error.code, 'VALIDATION_ERROR', String(value));
    assert.deepEqual((error.details?.['fields'] as Array<{ field: string }>).map((f) => f.field), ['returnUrl']);
  }
});
