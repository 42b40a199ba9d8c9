import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SecretBox, SecretBoxError } from './secret-box';

const KEY = 'settings-encryption-key-0123456789abcdef';

test('seal then open gives the plaintext back; each seal is different (random IV); the plaintext is not in the sealed text', () => {
  const box = new SecretBox(KEY);
  const first = box.seal('hunter2-very-secret', 'settings:sso.spKey');
  const second = box.seal('hunter2-very-secret', 'settings:sso.spKey');
  assert.notEqual(first, second);
  assert.match(first, /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  assert.ok(!first.includes('hunter2'));
  assert.ok(SecretBox.isSealed(first));
  assert.equal(box.open(first, 'settings:sso.spKey'), 'hunter2-very-secret');
  assert.equal(box.open(box.seal('', 'c'), 'c'), '');
  assert.equal(box.open(box.seal('ünïcödé 🔑', 'c'), 'c'), 'ünïcödé 🔑');
});

test('another key, another context or any altered byte does not open', () => {
  const box = new SecretBox(KEY);
  const sealed = box.seal('value', 'settings:a');
  assert.throws(() => new SecretBox(`${KEY}-other`).open(sealed, 'settings:a'), SecretBoxError);
  assert.throws(() => box.open(sealed, 'settings:b'), SecretBoxError);
  const parts = sealed.split('.');
  const ciphertext = Buffer.from(parts[3]!, 'base64url');
  ciphertext[0] = ciphertext[0]! ^ 1;
  parts[3] = ciphertext.toString('base64url');
  assert.throws(() => box.open(parts.join('.'), 'settings:a'), SecretBoxError);
  for (const malformed of ['', 'plain', 'v2.a.b.c', 'v1.a.b', 'v1.a.b.c.d']) assert.throws(() => box.open(malformed, 'settings:a'), SecretBoxError, malformed);
  assert.equal(SecretBox.isSealed('plain text'), false);
});
