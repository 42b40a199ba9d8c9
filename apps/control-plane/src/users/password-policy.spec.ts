import { test } from 'node:test';
import assert from 'node:assert/strict';
import { passwordPolicyViolation } from './password-policy';

test('a long enough password unrelated to the email passes', () => {
  assert.equal(passwordPolicyViolation('correct horse battery staple', 'ada@example.com'), undefined);
  assert.equal(passwordPolicyViolation('twelve chars', 'ada@example.com'), undefined);
});

test('each rule is named in its message', () => {
  assert.equal(passwordPolicyViolation('short', 'ada@example.com'), 'password must be at least 12 characters');
  assert.equal(passwordPolicyViolation('x'.repeat(129), 'ada@example.com'), 'password must be at most 128 characters');
  assert.equal(passwordPolicyViolation('ADA@example.com!', 'ada@example.com'), 'password must not contain the email address');
  assert.equal(passwordPolicyViolation('lovelace-2024-pw', 'lovelace@example.com'), 'password must not contain the email address');
  assert.equal(passwordPolicyViolation('aaaaaaaaaaaaaaaa', 'ada@example.com'), 'password must contain at least 4 different characters');
});

test('length counts characters, not UTF-16 units', () => {
  assert.equal(passwordPolicyViolation('😀😀😀😀😀😀abcdef', 'ada@example.com'), undefined);
  assert.equal(passwordPolicyViolation('😀😀😀😀😀abcdef', 'ada@example.com'), 'password must be at least 12 characters');
});
