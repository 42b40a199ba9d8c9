import { statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTempDir } from '@gateway/testing';
import { readOrCreateSecret, SECRET_FILES } from './secret-file';

test('each generated secret is written once, to its own file with mode 0600, and read back on the next start', () => {
  const dir = makeTempDir();
  try {
    const dataDir = path.join(dir.path, 'data');
    const jwt = readOrCreateSecret(dataDir, 'jwt');
    const apiKey = readOrCreateSecret(dataDir, 'apiKey');
    for (const [name, first] of [['jwt', jwt], ['apiKey', apiKey]] as const) {
      assert.equal(first.source, 'generated');
      assert.ok(first.secret.length >= 32);
      assert.equal(statSync(path.join(dataDir, SECRET_FILES[name])).mode & 0o777, 0o600);
      assert.deepEqual(readOrCreateSecret(dataDir, name), { secret: first.secret, source: 'file' });
    }
    assert.notEqual(jwt.secret, apiKey.secret, 'the secrets are independent');
  } finally {
    dir.remove();
  }
});
