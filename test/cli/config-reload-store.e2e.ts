import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  clusterSecrets,
  controlPlaneEnv,
  createTestDatabase,
  loginToManagementApi,
  request,
  startGatewayProcess,
  startTextUpstream,
  type GatewayProcess,
  type LoopbackUpstream,
  type ManagementApi,
  type TestDatabase,
} from '@gateway/testing';
import { printedDiff, runGateway, waitFor, type PrintedDiff } from './gateway-cli';

/*
 * `gateway config:reload` where a control plane owns the routes (issue 3): the preview is the
 * store's own plan, and what the gateway then applies (its reload-status.json answer and the
 * control plane's audit entry) is exactly what was printed.
 */

const configFor = (routes: string) => `version: "1.0.0"\nroutes:\n${routes}`;
const route = (id: string, origin: string) => `  - { id: ${id}, path: /${id}/*, upstream: "${origin}" }\n`;

interface AuditEntry {
  action: string;
  details: PrintedDiff | null;
}

for (const role of ['all', 'control-plane'] as const) {
  describe(`gateway config:reload against a --role ${role} gateway`, () => {
    let blue: LoopbackUpstream;
    let green: LoopbackUpstream;
    let gateway: GatewayProcess;
    let api: ManagementApi;
    const secrets = clusterSecrets(`cli-reload-${role}`);
    const reload = (...args: string[]) => runGateway(['config:reload', '--config', gateway.configPath, '--data-dir', gateway.dataDir, ...args], { cwd: gateway.dir });
    const statusFile = () => path.join(gateway.dataDir, 'reload-status.json');
    const lastReconcile = async (): Promise<PrintedDiff | null | undefined> => {
      const entries = (await api.expect(200, 'GET', '/api/audit-log?limit=100')).json<{ data: AuditEntry[] }>().data;
      const details = entries.find((entry) => entry.action === 'config.reconcile')?.details;
      return details === undefined || details === null ? details : { added: [...details.added].sort(), changed: [...details.changed].sort(), removed: [...details.removed].sort() };
    };
    /** Where the file routes are served: through the data plane in one process, in the store otherwise. */
    const fileRouteIds = async (): Promise<string[]> => {
      const routes = (await api.expect(200, 'GET', '/api/routes?limit=100')).json<{ data: Array<{ id: string; source: string }> }>().data;
      return routes.filter((r) => r.source === 'file').map((r) => r.id).sort();
    };

    before(async () => {
      [blue, green] = await Promise.all([startTextUpstream('blue'), startTextUpstream('green')]);
      gateway = await startGatewayProcess({
        role,
        config: configFor(route('c1', blue.origin) + route('c2', blue.origin) + route('c3', blue.origin)),
        env: { ...controlPlaneEnv(secrets, undefined), CLUSTER_TOKEN: undefined },
        startTimeoutMs: 30_000,
      });
      await gateway.waitForOutput('pid file written');
      api = await loginToManagementApi(gateway.url, secrets.admin);
      // An API route: never part of a proxy.yml diff.
      await api.expect(201, 'POST', '/api/routes', { id: 'api1', path: '/api1/*', upstream: blue.origin });
    });
    after(async () => {
      await gateway?.stop();
      await Promise.all([blue?.close(), green?.close()]);
    });

    test('start records where the routes are: the store', () => {
      const record = JSON.parse(readFileSync(path.join(gateway.dataDir, 'gateway.role.json'), 'utf8')) as { role: string; pid: number; routes: { kind: string; store: string } };
      assert.equal(record.role, role);
      assert.equal(record.pid, gateway.pid);
      // One process serves the management prefixes itself, so its reloads refuse file routes there.
      const reservedPathPrefixes = role === 'all' ? ['/api', '/admin', '/internal'] : [];
      assert.deepEqual(record.routes, { kind: 'store', store: `sqlite:${path.join(gateway.dataDir, 'gateway.sqlite')}`, reservedPathPrefixes });
    });

    test('--dry-run with the file as started: the routes already in the store are no change', async () => {
      const result = await reload('--dry-run');
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /against the file routes in the control plane's store \(SQLite .*gateway\.sqlite, revision \d+\):/);
      assert.match(result.stdout, /^0 added, 0 changed, 0 removed$/m);
      assert.deepEqual(printedDiff(result.stdout), { added: [], changed: [], removed: [] });
    });

    test('--dry-run prints the store diff (API routes untouched) and applies nothing', async () => {
      gateway.writeConfig(configFor(route('c1', green.origin) + route('c3', blue.origin) + route('c4', green.origin)));
      const result = await reload('--dry-run');
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(printedDiff(result.stdout), { added: ['c4'], changed: ['c1'], removed: ['c2'] });
      assert.match(result.stdout, /^ {2}~ c1 .*\(changed: upstream\)$/m);
      assert.match(result.stdout, /^1 added, 1 changed, 1 removed$/m);
      assert.match(result.stdout, /Dry run: nothing was signalled/);
      assert.equal(existsSync(statusFile()), false, 'the gateway was signalled');
      assert.deepEqual(await fileRouteIds(), ['c1', 'c2', 'c3']);
    });

    test('a real reload prints the same diff, and the gateway applies exactly that diff', async () => {
      const result = await reload();
      assert.equal(result.code, 0, result.stderr);
      const printed = printedDiff(result.stdout);
      assert.deepEqual(printed, { added: ['c4'], changed: ['c1'], removed: ['c2'] });
      assert.match(result.stdout, new RegExp(`Sent SIGHUP to the gateway \\(pid ${gateway.pid}\\)`));
      // Three file routes and the API route.
      assert.match(result.stdout, /Reloaded at .*: the gateway serves 4 routes \(1 added, 1 changed, 1 removed\)\.$/m);

      const answer = JSON.parse(readFileSync(statusFile(), 'utf8')) as { ok: boolean; diff: { added: Array<{ id: string }>; changed: Array<{ after: { id: string } }>; removed: Array<{ id: string }> } };
      assert.equal(answer.ok, true);
      assert.deepEqual(
        { added: answer.diff.added.map((r) => r.id), changed: answer.diff.changed.map((c) => c.after.id), removed: answer.diff.removed.map((r) => r.id) },
        printed,
      );
      assert.deepEqual(await lastReconcile(), printed, "the control plane's audit entry of the reconciliation");
      assert.deepEqual(await fileRouteIds(), ['c1', 'c3', 'c4']);
      if (role === 'all') {
        assert.equal((await request(`${gateway.url}/c1/x`)).text, 'green');
        assert.equal((await request(`${gateway.url}/c4/x`)).text, 'green');
        assert.equal((await request(`${gateway.url}/c2/x`)).status, 404);
      }
    });

    test('a SIGHUP sent directly applies what the dry run previewed; afterwards nothing is left to change', async () => {
      gateway.writeConfig(configFor(route('c1', green.origin) + route('c4', green.origin) + route('c5', blue.origin)));
      const preview = await reload('--dry-run');
      assert.equal(preview.code, 0, preview.stderr);
      const before = readFileSync(statusFile(), 'utf8');
      gateway.signal('SIGHUP');
      const answer = await waitFor('a new reload-status.json', () => {
        const text = readFileSync(statusFile(), 'utf8');
        return text === before ? undefined : (JSON.parse(text) as { ok: boolean; routes: number; diff: { added: Array<{ id: string }>; removed: Array<{ id: string }> } });
      });
      assert.equal(answer.ok, true);
      assert.deepEqual(printedDiff(preview.stdout), { added: ['c5'], changed: [], removed: ['c3'] });
      assert.deepEqual({ added: answer.diff.added.map((r) => r.id), removed: answer.diff.removed.map((r) => r.id) }, { added: ['c5'], removed: ['c3'] });
      assert.equal(answer.routes, 4);

      const again = await reload('--dry-run');
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /^0 added, 0 changed, 0 removed$/m);
    });

    test("a file route on an API route's path: refused before signalling, as the control plane would", async () => {
      const before = readFileSync(statusFile(), 'utf8');
      gateway.writeConfig(configFor(route('c1', green.origin) + `  - { id: taken, path: /api1/*, upstream: "${blue.origin}" }\n`));
      const result = await reload();
      assert.equal(result.code, 1);
      assert.match(result.stderr, /proxy\.yml:4 routes\[1\]\.path: Path already exists/);
      assert.match(result.stderr, /the control plane would refuse it \(1 error\); nothing was reloaded/);
      assert.doesNotMatch(result.stdout, /Sent SIGHUP/);
      assert.equal(readFileSync(statusFile(), 'utf8'), before);
    });
  });
}

describe('gateway config:reload against a control plane on PostgreSQL', () => {
  let database: TestDatabase;
  let gateway: GatewayProcess;
  let upstream: LoopbackUpstream;
  const secrets = clusterSecrets('cli-reload-pg');

  before(async () => {
    [database, upstream] = await Promise.all([createTestDatabase('cli_reload'), startTextUpstream('pg')]);
    gateway = await startGatewayProcess({
      role: 'control-plane',
      config: configFor(route('p1', upstream.origin)),
      env: { ...controlPlaneEnv(secrets, undefined), DATABASE_URL: database.url },
      startTimeoutMs: 30_000,
    });
  });
  after(async () => {
    await gateway?.stop();
    await upstream?.close();
    await database?.drop();
  });

  test('with the same DATABASE_URL: the diff against that database', async () => {
    gateway.writeConfig(configFor(route('p1', upstream.origin) + route('p2', upstream.origin)));
    const result = await runGateway(['config:reload', '--dry-run', '--config', gateway.configPath, '--data-dir', gateway.dataDir], { env: { DATABASE_URL: database.url } });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`store \\(PostgreSQL 127\\.0\\.0\\.1:5432/${database.name}, revision \\d+\\)`));
    assert.deepEqual(printedDiff(result.stdout), { added: ['p2'], changed: [], removed: [] });
  });

  test('without DATABASE_URL: refused, naming the store the gateway uses and the variable to set', async () => {
    const result = await runGateway(['config:reload', '--dry-run', '--config', gateway.configPath, '--data-dir', gateway.dataDir], { env: { DATABASE_URL: '' } });
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`keeps its routes in PostgreSQL 127\\.0\\.0\\.1:5432/${database.name}, but this command would read SQLite .*gateway\\.sqlite: set DATABASE_URL`));
    assert.doesNotMatch(result.stdout, /added/);
  });
});
