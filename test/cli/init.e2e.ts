import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '@gateway/testing';
import { runGateway } from './gateway-cli';

const SECRETS = ['JWT_SECRET', 'CLUSTER_TOKEN', 'API_KEY_SECRET', 'SETTINGS_ENCRYPTION_KEY'];
const PLACEHOLDERS = ['ADMIN_EMAIL', 'DATABASE_URL', 'REDIS_URL', 'ALLOWED_ORIGINS'];

function secretsOf(envText: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of SECRETS) {
    const match = new RegExp(`^${name}=(.*)$`, 'm').exec(envText);
    assert.ok(match, `${name} missing from .env`);
    values[name] = match[1]!;
  }
  return values;
}

describe('gateway init', () => {
  const temp = makeTempDir('gateway-cli-init-');
  after(() => temp.remove());

  test('writes a valid example proxy.yml and a 0600 .env with fresh secrets', async () => {
    const cwd = path.join(temp.path, 'fresh');
    const result = await runGateway(['init', '--dir', cwd]);
    assert.equal(result.code, 0, result.stderr);

    const yaml = readFileSync(path.join(cwd, 'proxy.yml'), 'utf8');
    assert.match(yaml, /^version: /m);
    assert.match(yaml, /^upstreams:/m);
    assert.match(yaml, /^routes:/m);
    assert.match(yaml, /timeout:\n\s+connect: \d+\n\s+request: \d+/);
    assert.doesNotMatch(yaml, /rateLimit|circuitBreaker/, "only blocks this version enforces");
    assert.match(yaml, /^# /m, 'the example explains itself in comments');

    const envFile = path.join(cwd, '.env');
    assert.equal(statSync(envFile).mode & 0o777, 0o600);
    const envText = readFileSync(envFile, 'utf8');
    const secrets = secretsOf(envText);
    for (const [name, value] of Object.entries(secrets)) {
      assert.match(value, /^[A-Za-z0-9_-]{43}$/, `${name} is not 32 bytes of base64url`);
      assert.equal(Buffer.from(value, 'base64url').length, 32);
    }
    assert.equal(new Set(Object.values(secrets)).size, SECRETS.length, 'every secret is different');
    for (const name of PLACEHOLDERS) assert.match(envText, new RegExp(`^# ${name}=`, 'm'));
    // A route's JWT secret is its own variable, never the management JWT_SECRET.
    assert.match(envText, /^# ROUTE_JWT_SECRET=$/m);
    assert.doesNotMatch(envText, /^#.*\broutes? with auth type jwt\b.*\n(?:#.*\n)*JWT_SECRET=/im);

    // Tells what it wrote, never the secrets themselves.
    assert.match(result.stdout, /proxy\.yml/);
    assert.match(result.stdout, /\.env/);
    for (const value of Object.values(secrets)) {
      assert.ok(!result.stdout.includes(value) && !result.stderr.includes(value), 'a secret was printed');
    }

    const validate = await runGateway(['config:validate'], { cwd });
    assert.equal(validate.code, 0, validate.stderr);
    assert.match(validate.stdout, /valid \(3 routes, 2 upstreams\)/);
  });

  test('writes into the current directory by default', async () => {
    const cwd = makeTempDir('gateway-cli-init-cwd-');
    try {
      const result = await runGateway(['init'], { cwd: cwd.path });
      assert.equal(result.code, 0, result.stderr);
      assert.ok(statSync(path.join(cwd.path, 'proxy.yml')).isFile());
      assert.ok(statSync(path.join(cwd.path, '.env')).isFile());
    } finally {
      cwd.remove();
    }
  });

  test('keeps existing files, says so for each, still creates the admin and exits 0', async () => {
    const dir = path.join(temp.path, 'keep');
    assert.equal((await runGateway(['init', '--dir', dir, '--skip-admin'])).code, 0);
    writeFileSync(path.join(dir, 'proxy.yml'), 'version: "1.0.0"\nroutes: []\n');
    const envBefore = `${readFileSync(path.join(dir, '.env'), 'utf8')}REDIS_URL=redis://127.0.0.1:6379\n`;
    writeFileSync(path.join(dir, '.env'), envBefore);

    const result = await runGateway(['init', '--dir', dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Kept .*proxy\.yml: it exists/);
    assert.match(result.stdout, /Kept .*\.env: it exists; its secrets and settings stay as they are/);
    assert.match(result.stdout, /Created the admin account admin@localhost with the password: \S{16,}/);
    assert.equal(readFileSync(path.join(dir, 'proxy.yml'), 'utf8'), 'version: "1.0.0"\nroutes: []\n');
    assert.equal(readFileSync(path.join(dir, '.env'), 'utf8'), envBefore);
  });

  test('only .env exists: it is kept and proxy.yml is written', async () => {
    const dir = makeTempDir('gateway-cli-init-one-');
    try {
      writeFileSync(path.join(dir.path, '.env'), 'KEEP=me\n');
      const result = await runGateway(['init', '--skip-admin'], { cwd: dir.path });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Kept \.env: it exists/);
      assert.match(result.stdout, /Wrote proxy\.yml/);
      assert.ok(statSync(path.join(dir.path, 'proxy.yml')).isFile());
      assert.equal(readFileSync(path.join(dir.path, '.env'), 'utf8'), 'KEEP=me\n');
    } finally {
      dir.remove();
    }
  });

  test('--force writes both again with mode 0600, keeps the secrets of the previous .env and saves it as .env.bak', async () => {
    const dir = path.join(temp.path, 'force');
    assert.equal((await runGateway(['init', '--dir', dir, '--skip-admin'])).code, 0);
    const envFile = path.join(dir, '.env');
    const firstText = `${readFileSync(envFile, 'utf8')}REDIS_URL=redis://127.0.0.1:6379\n`;
    writeFileSync(envFile, firstText);
    const first = secretsOf(firstText);
    writeFileSync(path.join(dir, 'proxy.yml'), 'edited: true\n');
    chmodSync(envFile, 0o644);

    const result = await runGateway(['init', '--dir', dir, '--force', '--skip-admin']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(readFileSync(path.join(dir, 'proxy.yml'), 'utf8'), /^routes:/m);
    assert.equal(statSync(envFile).mode & 0o777, 0o600);
    assert.deepEqual(secretsOf(readFileSync(envFile, 'utf8')), first, 'no secret was replaced');
    for (const name of SECRETS) assert.match(result.stdout, new RegExp(`^  ${name}: kept from the previous \\.env$`, 'm'));
    assert.equal(readFileSync(`${envFile}.bak`, 'utf8'), firstText);
    assert.equal(statSync(`${envFile}.bak`).mode & 0o777, 0o600);
  });
});
