import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FINGERPRINTS_FILE, recordSecretFingerprints } from './secret-fingerprints';

test('a changed secret is named once, an unchanged or new one is not; the file holds no secret and is 0600', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fingerprints-'));
  try {
    const a = 'a'.repeat(40);
    const b = 'b'.repeat(40);
    assert.deepEqual(recordSecretFingerprints(dataDir, { JWT_SECRET: a, API_KEY_SECRET: undefined }), []);
    assert.deepEqual(recordSecretFingerprints(dataDir, { JWT_SECRET: a, API_KEY_SECRET: b }), [], 'unchanged, and a secret seen for the first time');
    const warnings = recordSecretFingerprints(dataDir, { JWT_SECRET: a, API_KEY_SECRET: a });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /^API_KEY_SECRET is not the one the previous start used \(API keys created before no longer match/);
    assert.deepEqual(recordSecretFingerprints(dataDir, { JWT_SECRET: a, API_KEY_SECRET: a }), [], 'said once: the new one is now the last used');

    const file = path.join(dataDir, FINGERPRINTS_FILE);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(a) && !text.includes(b));
    assert.deepEqual(Object.keys(JSON.parse(text) as object).sort(), ['API_KEY_SECRET', 'JWT_SECRET']);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
