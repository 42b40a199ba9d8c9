import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createTestDatabase, makeTempDir } from '@gateway/testing';
import { createAdmin } from './create-admin';
import { POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS } from './database/migrations';
import { migrate } from './migrate';

test('SQLite: migrate() applies the schema once and reports it; createAdmin() then adds a verifiable admin', async () => {
  const dir = makeTempDir();
  try {
    const env = {};
    assert.deepEqual(await migrate({ dataDir: dir.path, env }), SQLITE_MIGRATIONS.map((migration) => migration.name));
    assert.deepEqual(await migrate({ dataDir: dir.path, env }), []);
    const created = await createAdmin({ dataDir: dir.path, env }, 'Root@Example.com');
    assert.equal(created.email, 'root@example.com');
    assert.ok(created.password.length >= 20);
    await assert.rejects(createAdmin({ dataDir: dir.path, env }, 'root@example.com'), { name: 'EmailTakenError' });

    const db = new Database(path.join(dir.path, 'gateway.sqlite'), { readonly: true });
    try {
      const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as Array<{ name: string }>).map((t) => t.name);
      for (const table of ['api_keys', 'audit_log', 'config_revision', 'leases', 'migrations', 'revoked_tokens', 'routes', 'saml_requests', 'settings_versions', 'telemetry_intervals', 'users', 'webhook_attempts', 'webhook_deliveries', 'webhooks']) assert.ok(tables.includes(table), table);
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
    assert.deepEqual(results.map((r) => r.length).sort(), [0, 0, POSTGRES_MIGRATIONS.length]);
    assert.deepEqual(results.find((r) => r.length > 0), POSTGRES_MIGRATIONS.map((migration) => migration.name));
    assert.deepEqual(await migrate({ dataDir: dir.path, env }), []);
    const created = await createAdmin({ dataDir: dir.path, env }, 'pg-admin@example.com');
    assert.equal(created.email, 'pg-admin@example.com');
    await assert.rejects(createAdmin({ dataDir: dir.path, env }, 'PG-Admin@example.com'), { name: 'EmailTakenError' });
  } finally {
    dir.remove();
    await database.drop();
  }
});
