import { statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTempDir } from '@gateway/testing';
import { JWT_SECRET_FILE, readOrCreateJwtSecret } from './jwt-secret-file';

test('the generated secret is written once with mode 0600 and read back on the next start', () => {
  const dir = makeTempDir();
  try {
    const dataDir = path.join(dir.path, 'data');
    const first = readOrCreateJwtSecret(dataDir);
    assert.equal(first.source, 'generated');
    assert.ok(first.secret.length >= 32);
    assert.equal(statSync(path.join(dataDir, JWT_SECRET_FILE)).mode & 0o777, 0o600);
    const second = readOrCreateJwtSecret(dataDir);
    assert.deepEqual(second, { secret: first.secret, source: 'file' });
  } finally {
    dir.remove();
  }
});
