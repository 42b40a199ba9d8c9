import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestDatabase, makeTempDir, request, startGatewayProcess } from '@gateway/testing';
import { runGateway } from './gateway-cli';

describe('gateway migrate', () => {
  const temp = makeTempDir('gateway-migrate-');
  after(() => temp.remove());

  test('SQLite: lists the migrations it applied, then says there is nothing to apply', async () => {
    const dataDir = path.join(temp.path, 'sqlite');
    const first = await runGateway(['migrate', '--data-dir', dataDir]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^Applied \d+ migrations? to SQLite in .*sqlite:\n(  \w+Sqlite\d+\n)+$/);
    const second = await runGateway(['migrate', '--data-dir', dataDir]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /is up to date: no migration to apply/);
  });

  test('PostgreSQL through DATABASE_URL: the same, and two concurrent runs apply each migration once', async () => {
    const database = await createTestDatabase('gw_migrate');
    try {
      const env = { DATABASE_URL: database.url };
      const [a, b] = await Promise.all([
        runGateway(['migrate', '--data-dir', path.join(temp.path, 'pg-a')], { env }),
        runGateway(['migrate', '--data-dir', path.join(temp.path, 'pg-b')], { env }),
      ]);
      assert.equal(a.code, 0, a.stderr);
      assert.equal(b.code, 0, b.stderr);
      const applied = [a.stdout, b.stdout].join('').match(/^  \w+Postgres\d+$/gm) ?? [];
      assert.ok(applied.length > 0, 'one of them applied the migrations');
      assert.equal(new Set(applied).size, applied.length, 'no migration was applied twice');
      assert.match(a.stdout + b.stdout, /PostgreSQL \(\$DATABASE_URL\)/);
    } finally {
      await database.drop();
    }
  });

  test('an unreachable database: exit 1 with the reason, no stack trace', async () => {
    const result = await runGateway(['migrate', '--data-dir', path.join(temp.path, 'down')], { env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' } });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /gateway migrate: /);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });
});

describe('gateway init: the first admin', () => {
  const temp = makeTempDir('gateway-init-admin-');
  after(() => temp.remove());

  test('prints a generated password once; it logs in to the one-process gateway; a second init leaves the account alone', async () => {
    const dataDir = path.join(temp.path, 'data');
    const first = await runGateway(['init', '--dir', temp.path, '--data-dir', dataDir, '--admin-email', 'Ops@Example.com']);
    assert.equal(first.code, 0, first.stderr);
    const password = /Created the admin account ops@example\.com with the password: (\S+)/.exec(first.stdout)?.[1];
    assert.ok(password !== undefined && password.length >= 16, first.stdout);

    const again = await runGateway(['init', '--dir', temp.path, '--data-dir', dataDir, '--admin-email', 'ops@example.com', '--force']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /The account ops@example\.com already exists; it was left as it is/);
    assert.doesNotMatch(again.stdout, /password: /);

    const gateway = await startGatewayProcess({
      role: 'all',
      config: 'version: "1.0.0"\nroutes: []\n',
      args: ['--data-dir', dataDir],
      env: { JWT_SECRET: 'j'.repeat(40) },
    });
    try {
      const login = (body: unknown) =>
        request(`${gateway.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const ok = await login({ email: 'ops@example.com', password });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(typeof (JSON.parse(ok.text) as { data: { token: unknown } }).data.token, 'string');
      const wrong = await login({ email: 'ops@example.com', password: `${password}x` });
      assert.equal(wrong.status, 401);
    } finally {
      await gateway.stop();
    }
  });
});
