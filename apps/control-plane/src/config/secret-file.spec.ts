import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTempDir } from '@gateway/testing';
import { ConfigError } from './config-error';
import { MIN_SECRET_LENGTH, parseControlPlaneConfig } from './control-plane-config';
import { readOrCreateSecret, SECRET_FILES } from './secret-file';

test('each generated secret is written once, to its own file with mode 0600, and read back on the next start', () => {
  const dir = makeTempDir();
  try {
    const dataDir = path.join(dir.path, 'data');
    const jwt = readOrCreateSecret(dataDir, 'jwt');
    const apiKey = readOrCreateSecret(dataDir, 'apiKey');
    for (const [name, first] of [['jwt', jwt], ['apiKey', apiKey]] as const) {
      const file = path.join(dataDir, SECRET_FILES[name]);
      assert.equal(first.source, 'generated');
      assert.equal(first.file, file);
      assert.ok(first.secret.length >= MIN_SECRET_LENGTH);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.deepEqual(readOrCreateSecret(dataDir, name), { secret: first.secret, source: 'file', file });
    }
    assert.notEqual(jwt.secret, apiKey.secret, 'the secrets are independent');
    assert.deepEqual(readdirSync(dataDir).sort(), ['api-key-secret', 'jwt-secret'], 'no temporary file is left behind');
  } finally {
    dir.remove();
  }
});

for (const [name, variable] of [['jwt', 'JWT_SECRET'], ['apiKey', 'API_KEY_SECRET'], ['settings', 'SETTINGS_ENCRYPTION_KEY']] as const) {
  test(`a stored ${SECRET_FILES[name]} shorter than the minimum fails the start naming the file and the minimum, and is left as it was`, () => {
    const dir = makeTempDir();
    try {
      const dataDir = path.join(dir.path, 'data');
      mkdirSync(dataDir);
      const file = path.join(dataDir, SECRET_FILES[name]);
      const weak = 'x'.repeat(MIN_SECRET_LENGTH - 1);
      writeFileSync(file, `${weak}\n`, { mode: 0o600 });
      assert.deepEqual(readOrCreateSecret(dataDir, name), { secret: weak, source: 'file', file });
      assert.throws(
        () =>
          parseControlPlaneConfig({
            dataDir,
            configPath: path.join(dir.path, 'proxy.yml'),
            version: '0.0.0',
            standalone: false,
            env: {},
            persistedSecret: (which) => readOrCreateSecret(dataDir, which),
          }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.deepEqual(error.problems.map((p) => p.variable), [variable]);
          assert.ok(error.message.includes(file), error.message);
          assert.match(error.message, new RegExp(`minimum of ${MIN_SECRET_LENGTH} characters`));
          assert.ok(!error.message.includes(weak), 'the secret itself is not in the message');
          return true;
        },
      );
      assert.equal(readFileSync(file, 'utf8'), `${weak}\n`, 'the short secret was neither replaced nor rewritten');
    } finally {
      dir.remove();
    }
  });
}

test('an empty stored secret file is refused too, not silently replaced', () => {
  const dir = makeTempDir();
  try {
    const file = path.join(dir.path, SECRET_FILES.jwt);
    writeFileSync(file, '');
    assert.deepEqual(readOrCreateSecret(dir.path, 'jwt'), { secret: '', source: 'file', file });
    assert.equal(readFileSync(file, 'utf8'), '');
  } finally {
    dir.remove();
  }
});
