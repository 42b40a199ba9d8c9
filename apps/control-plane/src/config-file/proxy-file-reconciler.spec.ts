import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ROUTE_CHANGES_CHANNEL, type RouteChangeMessage } from '@gateway/events';
import type { RunningControlPlane } from '../control-plane-options';
import { previewReconcile } from '../preview-reconcile';
import { InvalidProxyFileError, start } from '../start';
import { createDialectFixture, DIALECTS, type DialectFixture } from '../testing/database-fixtures';

const FILE_V1 = `
version: "1.0.0"
upstreams:
  - { name: users, url: "http://127.0.0.1:9001/v1" }
routes:
  - { id: users, path: /users/*, upstream: users }
  - { id: orders, path: /orders/*, upstream: "http://127.0.0.1:9002" }
  - { path: /legacy, upstream: users }
`;

// users changed (priority), orders removed, legacy kept, billing added, upstream URL changed.
const FILE_V2 = `
version: "1.0.0"
upstreams:
  - { name: users, url: "http://127.0.0.1:9003/v2" }
routes:
  - { id: users, path: /users/*, upstream: users, priority: 80 }
  - { path: /legacy, upstream: users }
  - { id: billing, path: /billing/*, upstream: "http://127.0.0.1:9004" }
`;

const INVALID = `
version: "1.0.0"
routes:
  - { id: ok, path: /ok, upstream: "http://127.0.0.1:9005" }
  - { id: broken, path: "no-slash", upstream: "http://127.0.0.1:9006" }
  - { id: badurl, path: /badurl, upstream: "ftp://x" }
`;

for (const dialect of DIALECTS) {
  describe(`proxy.yml reconciliation (${dialect})`, () => {
    let fixture: DialectFixture;
    let cp: RunningControlPlane;
    let configPath: string;
    const messages: RouteChangeMessage[] = [];

    before(async () => {
      fixture = await createDialectFixture(dialect);
      configPath = path.join(path.dirname(fixture.dataDir), 'proxy.yml');
      writeFileSync(configPath, FILE_V1);
      cp = await start({ dataDir: fixture.dataDir, configPath, env: { ...fixture.env, LOG_LEVEL: 'silent' } });
      await cp.bus.subscribe<RouteChangeMessage>(ROUTE_CHANGES_CHANNEL, (m) => m.kind !== 'heartbeat' && messages.push(m));
      // The start's own `reloaded` (version 1) is delivered asynchronously; only later ones count.
      await new Promise((resolve) => setImmediate(resolve));
      messages.length = 0;
    });
    after(async () => {
      await cp?.close();
      await fixture?.dispose();
    });

    const fileRouteIds = async (): Promise<string[]> =>
      (await fixture.sql<{ id: string }>(`SELECT id FROM routes WHERE source = 'file' ORDER BY id`)).map((r) => r.id);

    test('start reconciles the file: its routes are file routes in the store and in the snapshot, in file order', async () => {
      const snapshot = await cp.snapshot();
      assert.equal(snapshot.version, 1);
      assert.deepEqual(snapshot.routes.map((r) => r.id), ['users', 'orders', 'file-legacy']);
      assert.ok(snapshot.routes.every((r) => r.source === 'file' && typeof r.createdAt === 'string'));
      assert.equal(snapshot.routes[0]!.upstream, 'http://127.0.0.1:9001/v1');
      assert.deepEqual(snapshot.upstreams.map((u) => u.name), ['users']);
      assert.deepEqual(await fileRouteIds(), ['file-legacy', 'orders', 'users']);
      const audit = await fixture.sql<{ action: string; actor: string }>(`SELECT action, actor FROM audit_log WHERE action LIKE 'config.%'`);
      assert.deepEqual(audit, [{ action: 'config.reconcile', actor: 'system' }]);
    });

    test('reconciling an unchanged file changes nothing: same version, no message', async () => {
      const outcome = await cp.reconcileFile();
      assert.ok(outcome.ok);
      assert.equal(outcome.version, 1);
      assert.deepEqual(outcome.diff, { added: [], changed: [], removed: [] });
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(messages, []);
    });

    test('dry run: the diff against the store, nothing written', async () => {
      await fixture.sql(
        `INSERT INTO routes (id, path, upstream, enabled, source, priority, description, tags, definition) VALUES ($1, $2, $3, $4, 'api', 50, '', '[]', $5)`,
        ['api-route', '/api-only', 'http://127.0.0.1:9009', dialect === 'sqlite' ? 1 : true, JSON.stringify({ id: 'api-route', path: '/api-only', upstream: 'http://127.0.0.1:9009', enabled: true, description: '', priority: 50, tags: [], stripPath: true, timeout: { request: 5000 } })],
      );
      writeFileSync(configPath, FILE_V2);
      const outcome = await cp.reconcileFile({ dryRun: true });
      assert.ok(outcome.ok);
      assert.equal(outcome.dryRun, true);
      assert.equal(outcome.version, 1);
      assert.deepEqual(outcome.diff.added.map((r) => r.id), ['billing']);
      // legacy names the upstream `users`, whose URL changed: its resolved upstream changes too.
      assert.deepEqual(outcome.diff.changed.map((c) => [c.after.id, c.fields]), [['users', ['priority', 'upstream']], ['file-legacy', ['upstream']]]);
      assert.deepEqual(outcome.diff.removed.map((r) => r.id), ['orders']);
      assert.deepEqual(await fileRouteIds(), ['file-legacy', 'orders', 'users']);
      assert.equal((await cp.snapshot()).version, 1);
    });

    test('apply: insert, update, delete in one revision and one reloaded message; API routes untouched', async () => {
      const outcome = await cp.reconcileFile();
      assert.ok(outcome.ok);
      assert.equal(outcome.dryRun, false);
      assert.equal(outcome.version, 2);
      assert.deepEqual(await fileRouteIds(), ['billing', 'file-legacy', 'users']);
      const deadline = Date.now() + 5000;
      while (messages.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(messages, [{ kind: 'reloaded', version: 2 }]);
      const snapshot = await cp.snapshot();
      assert.equal(snapshot.version, 2);
      assert.deepEqual(snapshot.routes.map((r) => r.id).sort(), ['api-route', 'billing', 'file-legacy', 'users']);
      const users = snapshot.routes.find((r) => r.id === 'users')!;
      assert.equal(users.priority, 80);
      assert.equal(users.upstream, 'http://127.0.0.1:9003/v2');
      assert.equal(snapshot.routes.find((r) => r.id === 'api-route')!.source, 'api');
      assert.deepEqual(snapshot.upstreams, [
        { name: 'users', targets: [{ url: 'http://127.0.0.1:9003/v2', weight: 100 }], balancing: { algorithm: 'round-robin' }, dnsRefreshInterval: 30000, source: 'file' },
      ]);
    });

    test('previewReconcile() from outside the running control plane: the same plan, read-only', async () => {
      const otherFile = path.join(path.dirname(fixture.dataDir), 'proxy.v1.yml');
      writeFileSync(otherFile, FILE_V1);
      const preview = await previewReconcile({ dataDir: fixture.dataDir, configPath: otherFile, env: fixture.env });
      assert.ok(preview.ok);
      assert.equal(preview.version, 2);
      assert.deepEqual(preview.diff.added.map((r) => r.id), ['orders']);
      assert.deepEqual(preview.diff.removed.map((r) => r.id), ['billing']);
      assert.deepEqual(await fileRouteIds(), ['billing', 'file-legacy', 'users']);
      rmSync(otherFile);
    });

    test('an invalid file changes nothing and reports every error with its field and line', async () => {
      messages.length = 0;
      writeFileSync(configPath, INVALID);
      const outcome = await cp.reconcileFile();
      assert.equal(outcome.ok, false);
      assert.ok(!outcome.ok);
      const byField = new Map(outcome.errors.map((e) => [e.field, e]));
      assert.equal(byField.get('routes[1].path')?.code, 'INVALID_PATH');
      assert.equal(byField.get('routes[1].path')?.line, 5);
      assert.equal(byField.get('routes[2].upstream')?.code, 'INVALID_URL');
      assert.equal(byField.get('routes[2].upstream')?.line, 6);
      assert.equal((await cp.snapshot()).version, 2);
      assert.deepEqual(await fileRouteIds(), ['billing', 'file-legacy', 'users']);
      const failed = await fixture.sql(`SELECT action FROM audit_log WHERE action = 'config.reconcile.failed'`);
      assert.equal(failed.length, 1);
    });

    test('a file route on the path of an enabled API route is refused with PATH_EXISTS and its line', async () => {
      writeFileSync(configPath, `version: "1.0.0"\nroutes:\n  - { id: clash, path: /api-only, upstream: "http://127.0.0.1:9007" }\n`);
      const outcome = await cp.reconcileFile();
      assert.ok(!outcome.ok);
      assert.deepEqual(outcome.errors.map((e) => [e.field, e.code, e.line]), [['routes[0].path', 'PATH_EXISTS', 3]]);
      assert.equal((await cp.snapshot()).version, 2);
    });

    test('one process (no listen): a file route under /api or /admin is refused with RESERVED_PATH and its line; nothing changes', async () => {
      writeFileSync(configPath, `version: "1.0.0"\nroutes:\n  - { id: fine, path: /apis/*, upstream: "http://127.0.0.1:9007" }\n  - { id: mine, path: /api/*, upstream: "http://127.0.0.1:9007" }\n  - { id: ui, path: /admin, upstream: "http://127.0.0.1:9007" }\n`);
      const before = await fileRouteIds();
      const outcome = await cp.reconcileFile();
      assert.ok(!outcome.ok);
      assert.deepEqual(outcome.errors.map((e) => [e.field, e.code, e.line]), [['routes[1].path', 'RESERVED_PATH', 4], ['routes[2].path', 'RESERVED_PATH', 5]]);
      assert.match(outcome.errors[0]!.message, /\/api\/\* is under \/api, which the management API serves/);
      assert.equal((await cp.snapshot()).version, 2);
      assert.deepEqual(await fileRouteIds(), before);
    });

    test('a missing proxy.yml means no file routes', async () => {
      rmSync(configPath);
      const outcome = await cp.reconcileFile();
      assert.ok(outcome.ok);
      assert.equal(outcome.version, 3);
      assert.deepEqual(await fileRouteIds(), []);
      const snapshot = await cp.snapshot();
      assert.deepEqual(snapshot.routes.map((r) => r.id), ['api-route']);
      assert.deepEqual(snapshot.upstreams, []);
    });

    test('concurrent reconciliations of a changed file apply it once (one bump)', async () => {
      writeFileSync(configPath, `version: "1.0.0"\nroutes:\n  - { id: concurrent, path: /concurrent, upstream: "http://127.0.0.1:9008" }\n`);
      const outcomes = await Promise.all([cp.reconcileFile(), cp.reconcileFile(), cp.reconcileFile()]);
      assert.ok(outcomes.every((o) => o.ok));
      assert.deepEqual(outcomes.map((o) => (o.ok ? o.version : -1)), [4, 4, 4]);
      assert.deepEqual(await fileRouteIds(), ['concurrent']);
      rmSync(configPath);
      const cleared = await cp.reconcileFile();
      assert.ok(cleared.ok);
      assert.equal(cleared.version, 5);
    });

    test('the heartbeat carries the current version every second', async () => {
      const beats: number[] = [];
      const stop = await cp.bus.subscribe<RouteChangeMessage>(ROUTE_CHANGES_CHANNEL, (m) => m.kind === 'heartbeat' && beats.push(m.version));
      const deadline = Date.now() + 5000;
      while (beats.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      stop();
      assert.ok(beats.length >= 2);
      assert.ok(beats.every((v) => v === 5));
    });

    test('readiness reports the database', async () => {
      assert.deepEqual(await cp.readiness(), { database: 'UP' });
    });
  });
}

describe('start with an invalid proxy.yml', () => {
  test('fails with every error and leaves the store unchanged', async () => {
    const fixture = await createDialectFixture('sqlite');
    try {
      const configPath = path.join(path.dirname(fixture.dataDir), 'proxy.yml');
      writeFileSync(configPath, INVALID);
      await assert.rejects(start({ dataDir: fixture.dataDir, configPath, env: { LOG_LEVEL: 'silent' } }), (error: unknown) => {
        assert.ok(error instanceof InvalidProxyFileError);
        assert.deepEqual(error.errors.map((e) => e.field).sort(), ['routes[1].path', 'routes[2].upstream']);
        return true;
      });
      assert.deepEqual(await fixture.sql(`SELECT id FROM routes`), []);
    } finally {
      await fixture.dispose();
    }
  });
});
