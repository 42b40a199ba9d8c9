import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  loginToManagementApi,
  request,
  startTextUpstream,
  type ClusterSecrets,
  type GatewayProcess,
  type LoopbackUpstream,
  type ManagementApi,
} from '@gateway/testing';
import { auditedLogins, runGateway, startAdminGateway } from './gateway-cli';

interface ListedRoute {
  id: string;
  path: string;
  methods?: string[];
  upstream: string;
  enabled: boolean;
  priority: number;
  source: string;
  deletedAt?: string;
}

interface CachedTokens {
  tokens: Array<{ url: string; email: string; token: string; expiresAt: string }>;
}

/** More than one page of GET /api/routes (100 at most per page, decision 5). */
const BULK_ROUTES = 103;

describe('gateway routes:list', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  let secrets: ClusterSecrets;
  let adminEnv: NodeJS.ProcessEnv;
  let api: ManagementApi;
  const list = (...args: string[]) => runGateway(['routes:list', '--data-dir', gateway.dataDir, ...args], { env: adminEnv });
  const cacheFile = () => path.join(gateway.dataDir, 'cli-tokens.json');
  const cachedTokens = () => (JSON.parse(readFileSync(cacheFile(), 'utf8')) as CachedTokens).tokens;
  const logins = () => auditedLogins(api);

  before(async () => {
    upstream = await startTextUpstream('listed');
    ({ gateway, secrets, adminEnv } = await startAdminGateway(
      'cli-routes-list',
      `version: "1.0.0"\nroutes:\n  - { id: from-file, path: /files/*, upstream: "${upstream.origin}" }\n`,
    ));
    // The test's own login: one of the five the credentials tier allows.
    api = await loginToManagementApi(gateway.url, secrets.admin);
    await api.expect(201, 'POST', '/api/routes', { id: 'rw', path: '/rw/*', methods: ['GET', 'POST'], upstream: upstream.origin, priority: 70 });
    await api.expect(201, 'POST', '/api/routes', { id: 'draft', path: '/draft', upstream: upstream.origin, enabled: false });
    for (let i = 0; i < BULK_ROUTES; i += 1) {
      await api.expect(201, 'POST', '/api/routes', { id: `bulk-${String(i).padStart(3, '0')}`, path: `/bulk/${i}`, upstream: upstream.origin });
    }
    await api.expect(201, 'POST', '/api/routes', { id: 'gone', path: '/gone', upstream: upstream.origin });
    await api.expect(204, 'DELETE', '/api/routes/gone');
  });
  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  test('a table of every route, all pages, with the columns of each', async () => {
    const result = await list();
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^ID +PATH +METHODS +UPSTREAM +ENABLED +PRIORITY +SOURCE$/);
    assert.equal(lines.length, 1 + 1 + 2 + BULK_ROUTES, 'header, the file route, two API routes, the bulk routes');
    const row = (id: string) => (lines.find((line) => line.startsWith(`${id} `)) ?? '').split(/ {2,}/);
    assert.deepEqual(row('rw'), ['rw', '/rw/*', 'GET,POST', upstream.origin, 'yes', '70', 'api']);
    assert.deepEqual(row('draft'), ['draft', '/draft', 'ALL', upstream.origin, 'no', '50', 'api']);
    assert.deepEqual(row('from-file'), ['from-file', '/files/*', 'ALL', upstream.origin, 'yes', '50', 'file']);
    assert.deepEqual(row('bulk-102').slice(0, 2), ['bulk-102', '/bulk/102']);
    assert.ok(!lines.some((line) => line.startsWith('gone ')), 'a soft-deleted route is not listed');
  });

  test('--json: the canonical routes, the same as the API lists', async () => {
    const result = await list('--json');
    assert.equal(result.code, 0, result.stderr);
    const routes = JSON.parse(result.stdout) as ListedRoute[];
    assert.equal(routes.length, 3 + BULK_ROUTES);
    const viaApi = (await api.expect(200, 'GET', '/api/routes?limit=100&search=rw')).json<{ data: ListedRoute[] }>().data;
    assert.deepEqual(routes.find((r) => r.id === 'rw'), viaApi.find((r) => r.id === 'rw'));
    assert.deepEqual(new Set(routes.map((r) => r.id)).size, routes.length, 'no route twice across pages');
    assert.equal(routes.find((r) => r.id === 'from-file')?.source, 'file');
  });

  test('--deleted lists the soft-deleted routes with deletedAt', async () => {
    const table = await list('--deleted');
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^gone +\/gone +ALL +/m);
    const json = JSON.parse((await list('--deleted', '--json')).stdout) as ListedRoute[];
    assert.deepEqual(json.map((r) => r.id), ['gone']);
    assert.ok(!Number.isNaN(Date.parse(json[0]?.deletedAt ?? '')));
  });

  test('the token is logged in for once and kept 0600 in the data directory, never printed', async () => {
    assert.ok(existsSync(cacheFile()), 'no token cache');
    assert.equal(statSync(cacheFile()).mode & 0o777, 0o600);
    const [entry] = cachedTokens();
    assert.equal(entry?.url, gateway.url);
    assert.equal(entry?.email, secrets.admin.email);
    assert.ok(Date.parse(entry?.expiresAt ?? '') > Date.now() + 23 * 3600_000, 'expires with the token (86400 s)');
    const result = await list('--json');
    assert.ok(!result.stdout.includes(entry?.token ?? '?') && !result.stderr.includes(entry?.token ?? '?'));
    // The test's login and the CLI's first one, for four runs so far.
    assert.equal(await logins(), 2);
  });

  test('7 consecutive runs succeed under the credentials tier of 5 logins per 15 minutes', async () => {
    for (let run = 1; run <= 7; run += 1) {
      const result = await list();
      assert.equal(result.code, 0, `run ${run}: ${result.stderr}`);
    }
    assert.equal(await logins(), 2, 'no login after the first');
  });

  test('a cached token the gateway refuses (revoked at logout) is replaced by one new login', async () => {
    const revoked = cachedTokens()[0]?.token ?? '';
    assert.equal((await request(`${gateway.url}/api/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${revoked}` } })).status, 200);
    const result = await list();
    assert.equal(result.code, 0, result.stderr);
    const renewed = cachedTokens()[0]?.token;
    assert.ok(renewed !== undefined && renewed !== revoked);
    assert.equal((await list()).code, 0);
    assert.equal(await logins(), 3);
  });

  test('an expired cached token is not sent: one new login', async () => {
    const [entry] = cachedTokens();
    writeFileSync(cacheFile(), JSON.stringify({ tokens: [{ ...entry, expiresAt: new Date(Date.now() - 1000).toISOString() }] }), { mode: 0o600 });
    assert.equal((await list()).code, 0);
    assert.notEqual(cachedTokens()[0]?.token, entry?.token);
    assert.equal(await logins(), 4);
  });

  test('a token cache others can read is not trusted; it is rewritten 0600', async () => {
    chmodSync(cacheFile(), 0o644);
    assert.equal((await list()).code, 0);
    assert.equal(statSync(cacheFile()).mode & 0o777, 0o600);
    assert.equal(await logins(), 5);
  });

  test('--token is used as given (no login, nothing cached); a refused one fails with the reason', async () => {
    const before = readFileSync(cacheFile(), 'utf8');
    const given = await runGateway(['routes:list', '--url', gateway.url, '--data-dir', gateway.dataDir, '--token', api.token], { env: { ADMIN_EMAIL: '', ADMIN_PASSWORD: '' } });
    assert.equal(given.code, 0, given.stderr);
    const refused = await runGateway(['routes:list', '--url', gateway.url, '--data-dir', gateway.dataDir, '--token', 'not-a-token'], { env: adminEnv });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^gateway routes:list: GET \/api\/routes failed: HTTP 401 Unauthorized \(UNAUTHORIZED\)$/m);
    assert.equal(readFileSync(cacheFile(), 'utf8'), before);
  });

  test('no credentials: says which to give', async () => {
    const result = await runGateway(['routes:list', '--url', gateway.url, '--data-dir', path.join(gateway.dir, 'elsewhere')], { env: { ADMIN_EMAIL: '', ADMIN_PASSWORD: '', GATEWAY_TOKEN: '' } });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /needs an admin token: pass --token, set GATEWAY_TOKEN, or set ADMIN_EMAIL and ADMIN_PASSWORD/);
  });

  // Last: it spends the rest of the tier. Proves the runs above were under the real limit.
  test('the tier is really in force: the next logins are refused with 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 2; i += 1) {
      statuses.push((await request(`${gateway.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(secrets.admin) })).status);
    }
    assert.deepEqual(statuses, [429, 429]);
    // The cached token keeps working while logins are refused.
    assert.equal((await list()).code, 0);
  });
});
