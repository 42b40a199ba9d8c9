import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PasswordHasher, SCRYPT_PARAMS } from './password-hasher';

test('scrypt at OWASP parameters: a PHC string that verifies the password and nothing else', async () => {
  const hasher = new PasswordHasher();
  const hash = await hasher.hash('correct horse battery staple');
  assert.match(hash, /^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
  assert.equal(SCRYPT_PARAMS.N, 2 ** 17);
  assert.equal(await hasher.verify('correct horse battery staple', hash), true);
  assert.equal(await hasher.verify('correct horse battery stapl', hash), false);
  assert.notEqual(await hasher.hash('correct horse battery staple'), hash, 'salted');
});

test('a malformed or tampered hash never verifies (and never throws)', async () => {
  const hasher = new PasswordHasher();
  const hash = await hasher.hash('pw-123456789012');
  const parts = hash.split('$');
  parts[5] = Buffer.alloc(32, 1).toString('base64');
  assert.equal(await hasher.verify('pw-123456789012', parts.join('$')), false);
  assert.equal(await hasher.verify('pw-123456789012', 'plain-text'), false);
  assert.equal(await hasher.verify('pw-123456789012', await hasher.dummyHash()), false);
});
