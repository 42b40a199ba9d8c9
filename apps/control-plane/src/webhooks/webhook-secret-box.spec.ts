import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SecretBox, SecretBoxError } from '../encryption/secret-box';
import { WebhookSecretBox } from './webhook-secret-box';

const KEY = 'settings-encryption-key-0123456789abcdef';
const WEBHOOK = '5b0f4a8e-1c2d-4e3f-9a8b-7c6d5e4f3a2b';
const OTHER_WEBHOOK = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

test('a sealed webhook secret opens under the same SETTINGS_ENCRYPTION_KEY (as on another control plane), never under another key', () => {
  const sealed = new WebhookSecretBox(new SecretBox(KEY)).seal(WEBHOOK, 'whsec_c2VjcmV0');
  assert.ok(!sealed.includes('c2VjcmV0'));
  assert.ok(SecretBox.isSealed(sealed), 'the settings SecretBox form');
  assert.equal(new WebhookSecretBox(new SecretBox(KEY)).open(WEBHOOK, sealed), 'whsec_c2VjcmV0');
  assert.throws(() => new WebhookSecretBox(new SecretBox(`${KEY}-other`)).open(WEBHOOK, sealed), (error: unknown) => {
    assert.ok(error instanceof SecretBoxError);
    assert.match(error.message, new RegExp(`webhook ${WEBHOOK} cannot be decrypted with SETTINGS_ENCRYPTION_KEY`));
    assert.ok(!error.message.includes('c2VjcmV0'));
    return true;
  });
});

test("a secret copied onto another webhook's row does not open there, and a changed byte is refused", () => {
  const box = new WebhookSecretBox(new SecretBox(KEY));
  const sealed = box.seal(WEBHOOK, 'whsec_c2VjcmV0');
  assert.notEqual(box.seal(WEBHOOK, 'whsec_c2VjcmV0'), sealed, 'a fresh nonce each time');
  assert.throws(() => box.open(OTHER_WEBHOOK, sealed), SecretBoxError);
  const parts = sealed.split('.');
  const body = Buffer.from(parts[3] as string, 'base64url');
  body[0] = (body[0] as number) ^ 1;
  parts[3] = body.toString('base64url');
  assert.throws(() => box.open(WEBHOOK, parts.join('.')), SecretBoxError);
});
