import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandFailure } from './command';
import { chooseSecrets, secretsDifferingFromStored } from './init-secrets';

function withDataDir(files: Record<string, string>, run: (dataDir: string) => void): void {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'init-secrets-'));
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dataDir, name), content);
    run(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const STORED_JWT = 'j'.repeat(64);
const STORED_API_KEY = 'k'.repeat(64);

test('precedence: the previous .env, then the secret a start stored in the data dir, then a new one', () => {
  withDataDir({ 'jwt-secret': `${STORED_JWT}\n`, 'api-key-secret': `${STORED_API_KEY}\n` }, (dataDir) => {
    const chosen = chooseSecrets(`# comment\nJWT_SECRET=${'e'.repeat(40)}\nAPI_KEY_SECRET=\n`, dataDir);
    const byName = Object.fromEntries(chosen.map((secret) => [secret.name, secret]));
    assert.deepEqual(byName['JWT_SECRET'], { name: 'JWT_SECRET', value: 'e'.repeat(40), origin: { kind: 'env-file' } });
    // An empty value in .env is no secret: the stored one is taken.
    assert.deepEqual(byName['API_KEY_SECRET'], { name: 'API_KEY_SECRET', value: STORED_API_KEY, origin: { kind: 'data-dir', file: path.join(dataDir, 'api-key-secret') } });
    assert.equal(byName['CLUSTER_TOKEN']?.origin.kind, 'new');
    assert.match(byName['CLUSTER_TOKEN']?.value ?? '', /^[A-Za-z0-9_-]{43}$/);
  });
});

test('without a .env or stored secrets every secret is new and different', () => {
  withDataDir({}, (dataDir) => {
    const chosen = chooseSecrets(undefined, dataDir);
    assert.deepEqual(chosen.map((secret) => secret.origin.kind), ['new', 'new', 'new', 'new']);
    assert.equal(new Set(chosen.map((secret) => secret.value)).size, 4);
  });
});

test('a stored secret shorter than 32 characters is an error naming the file, not copied into .env', () => {
  withDataDir({ 'jwt-secret': 'short\n' }, (dataDir) => {
    assert.throws(() => chooseSecrets(undefined, dataDir), (error: unknown) => error instanceof CommandFailure && error.message.includes(path.join(dataDir, 'jwt-secret')) && /fewer than 32 characters/.test(error.message));
  });
});

test('secretsDifferingFromStored names what a kept .env would make the start refuse', () => {
  withDataDir({ 'jwt-secret': `${STORED_JWT}\n`, 'api-key-secret': `${STORED_API_KEY}\n` }, (dataDir) => {
    const envText = `JWT_SECRET=${STORED_JWT}\nAPI_KEY_SECRET=${'x'.repeat(40)}\nCLUSTER_TOKEN=${'c'.repeat(40)}\n`;
    assert.deepEqual(secretsDifferingFromStored(envText, dataDir), [{ name: 'API_KEY_SECRET', file: path.join(dataDir, 'api-key-secret') }]);
    assert.deepEqual(secretsDifferingFromStored('', dataDir), []);
  });
});
