import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readApiKeySet } from './snapshot-api-keys';

const DIGEST = 'ab'.repeat(32);

test('well-formed keys are kept (id, digest, name, expiry); each malformed one is left out with its field named', () => {
  const { set, ignored } = readApiKeySet(
    [
      { keyId: 'k1', digest: DIGEST, name: 'one', expiresAt: '2030-01-01T00:00:00.000Z' },
      { keyId: 'k2', digest: DIGEST.replace('ab', 'cd'), userId: 'not-taken-from-a-snapshot' },
      'not an object',
      { keyId: '', digest: DIGEST },
      { keyId: 'k3', digest: DIGEST.toUpperCase() },
      { keyId: 'k4', digest: DIGEST, name: 7 },
      { keyId: 'k5', digest: DIGEST, expiresAt: 'soon' },
    ],
    '0123456789abcdef',
  );
  assert.deepEqual(set, {
    keys: [
      { keyId: 'k1', digest: DIGEST, name: 'one', expiresAt: '2030-01-01T00:00:00.000Z' },
      { keyId: 'k2', digest: DIGEST.replace('ab', 'cd') },
    ],
    secretFingerprint: '0123456789abcdef',
  });
  assert.deepEqual(
    ignored.map((e) => e.field),
    ['apiKeys[2]', 'apiKeys[3].keyId', 'apiKeys[4].digest', 'apiKeys[5].name', 'apiKeys[6].expiresAt'],
  );
});

test('no apiKeys (a control plane that predates them) is no keys; a malformed list or fingerprint is reported and ignored', () => {
  assert.deepEqual(readApiKeySet(undefined, undefined), { set: { keys: [] }, ignored: [] });
  const bad = readApiKeySet({ keyId: 'k' }, 'XYZ');
  assert.deepEqual(bad.set, { keys: [] });
  assert.deepEqual(bad.ignored.map((e) => e.field), ['apiKeys', 'apiKeySecretFingerprint']);
});
