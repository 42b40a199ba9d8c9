import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTempDir } from '@gateway/testing';
import { WebhookSecretBox } from './webhook-secret-box';

test('sealed secrets open with the same data dir key, never with another, and a changed byte is refused', () => {
  const dir = makeTempDir();
  try {
    const box = new WebhookSecretBox({ dataDir: path.join(dir.path, 'a') });
    const sealed = box.seal('whsec_c2VjcmV0');
    assert.ok(!sealed.includes('c2VjcmV0'));
    assert.notEqual(box.seal('whsec_c2VjcmV0'), sealed, 'a fresh nonce each time');
    assert.equal(new WebhookSecretBox({ dataDir: path.join(dir.path, 'a') }).open(sealed), 'whsec_c2VjcmV0');
    assert.throws(() => new WebhookSecretBox({ dataDir: path.join(dir.path, 'b') }).open(sealed), /cannot be decrypted/);
    const parts = sealed.split(':');
    const body = Buffer.from(parts[2] as string, 'base64');
    body[0] = (body[0] as number) ^ 1;
    parts[2] = body.toString('base64');
    assert.throws(() => box.open(parts.join(':')), /cannot be decrypted/);
  } finally {
    dir.remove();
  }
});
