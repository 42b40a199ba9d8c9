import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '@gateway/testing';
import { runGateway } from './gateway-cli';

const SECRETS = ['JWT_SECRET', 'CLUSTER_TOKEN', 'API_KEY_SECRET'];
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

  test('refuses to overwrite existing files without --force, naming each, changing nothing', async () => {
    const dir = path.join(temp.path, 'refuse');
    assert.equal((await runGateway(['init', '--dir', dir])).code, 0);
    const yamlBefore = readFileSync(path.join(dir, 'proxy.yml'), 'utf8');
    const envBefore = readFileSync(path.join(dir, '.env'), 'utf8');
    const result = await runGateway(['init', '--dir', dir]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /proxy\.yml already exists; use --force/);
    assert.match(result.stderr, /\.env already exists; use --force/);
    assert.equal(readFileSync(path.join(dir, 'proxy.yml'), 'utf8'), yamlBefore);
    assert.equal(readFileSync(path.join(dir, '.env'), 'utf8'), envBefore);
  });

  test('refuses when only one of the two files exists, and writes neither', async () => {
    const dir = makeTempDir('gateway-cli-init-one-');
    try {
      writeFileSync(path.join(dir.path, '.env'), 'KEEP=me\n');
      const result = await runGateway(['init'], { cwd: dir.path });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /\.env already exists/);
      assert.doesNotMatch(result.stderr, /proxy\.yml/);
      assert.throws(() => statSync(path.join(dir.path, 'proxy.yml')), /ENOENT/);
      assert.equal(readFileSync(path.join(dir.path, '.env'), 'utf8'), 'KEEP=me\n');
    } finally {
      dir.remove();
    }
  });

  test('--force overwrites both, with new secrets and mode 0600', async () => {
    const dir = path.join(temp.path, 'force');
    assert.equal((await runGateway(['init', '--dir', dir])).code, 0);
    const envFile = path.join(dir, '.env');
    const first = secretsOf(readFileSync(envFile, 'utf8'));
    writeFileSync(path.join(dir, 'proxy.yml'), 'edited: true\n');
    chmodSync(envFile, 0o644);

    const result = await runGateway(['init', '--dir', dir, '--force']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(readFileSync(path.join(dir, 'proxy.yml'), 'utf8'), /^routes:/m);
    assert.equal(statSync(envFile).mode & 0o777, 0o600);
    const second = secretsOf(readFileSync(envFile, 'utf8'));
    for (const name of SECRETS) assert.notEqual(second[name], first[name], `${name} was not regenerated`);
  });
});
