import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createTestDatabase, makeTempDir } from '@gateway/testing';
import { createAdmin } from './create-admin';
import { migrate } from './migrate';

test('SQLite: migrate() applies the schema once and reports it; createAdmin() then adds a verifiable admin', async () => {
  const dir = makeTempDir();
  try {
    const env = {};
    assert.deepEqual(await migrate({ dataDir: dir.path, env }), ['InitialSchemaSqlite1763780000000', 'ProxyFileStateSqlite1763790000000', 'ApiKeysSqlite1763800000000', 'UserDisabledSqlite1763810000000', 'SettingsSqlite1763820000000', 'TelemetryIntervalsSqlite1763830000000', 'SamlSqlite1763840000000']);
    assert.deepEqual(await migrate({ dataDir: dir.path, env }), []);
    const created = await createAdmin({ dataDir: dir.path, env }, 'Root@Example.com');
    assert.equal(created.email, 'root@example.com');
    assert.ok(created.password.length >= 20);
    await assert.rejects(createAdmin({ dataDir: dir.path, env }, 'root@example.com'), { name: 'EmailTakenError' });

    const db = new Database(path.join(dir.path, 'gateway.sqlite'), { readonly: true });
    try {
      const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as Array<{ name: string }>).map((t) => t.name);
      for (const table of ['api_keys', 'audit_log', 'config_revision', 'migrations', 'revoked_tokens', 'routes', 'settings_versions', 'telemetry_intervals', 'users']) assert.ok(tables.includes(table), table);
      assert.deepEqual(db.prepare(`SELECT revision FROM config_revision WHERE id = 1`).get(), { revision: 0 });
      const user = db.prepare(`SELECT email, role, password_hash FROM users`).get() as { email: string; role: string; password_hash: string };
      assert.equal(user.role, 'admin');
      assert.ok(!user.password_hash.includes(created.password));
    } finally {
      db.close();
    }
  } finally {
    dir.remove();
  }
});

test('PostgreSQL: migrate() applies every migration on a fresh database, then nothing; createAdmin() works there too', async () => {
  const database = await createTestDatabase('cp_migrate');
  const dir = makeTempDir();
  try {
    const env = { DATABASE_URL: database.url };
    // Instances starting together: one migrates, the others wait for it and find nothing to do.
    const results = await Promise.all([migrate({ dataDir: dir.path, env }), migrate({ dataDir: dir.path, env }), migrate({ dataDir: dir.path, env })]);
    assert.deepEqual(results.map((r) => r.length).sort(), [0, 0, 7]);
    assert.deepEqual(results.find((r) => r.length === 7), ['InitialSchemaPostgres1763780000000', 'ProxyFileStatePostgres1763790000000', 'ApiKeysPostgres1763800000000', 'UserDisabledPostgres1763810000000', 'SettingsPostgres1763820000000', 'TelemetryIntervalsPostgres1763830000000', 'SamlPostgres1763840000000']);
    assert.deepEqual(await migrate({ dataDir: dir.path, env }), []);
    const created = await createAdmin({ dataDir: dir.path, env }, 'pg-admin@example.com');
    assert.equal(created.email, 'pg-admin@example.com');
    await assert.rejects(createAdmin({ dataDir: dir.path, env }, 'PG-Admin@example.com'), { name: 'EmailTakenError' });
  } finally {
    dir.remove();
    await database.drop();
  }
});
