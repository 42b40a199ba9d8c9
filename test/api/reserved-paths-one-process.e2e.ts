import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { request, startGatewayProcess, startTextUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { ADMIN, caller, login, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { runGateway } from '../cli/gateway-cli';

interface ErrorBody {
  success: false;
  code: string;
  error: string;
  details: { fields: Array<{ field: string; code: string; message: string }> };
}

const fileWith = (origin: string, extra = ''): string => `version: "1.0.0"\nroutes:\n  - { id: ok, path: /ok/*, upstream: "${origin}" }\n${extra}`;

/*
 * One process (`gateway start --role all`): /api, /admin and /internal reach the control plane
 * before any route, so a route there could never be served. The API refuses it like proxy.yml is
 * refused at start, and a SIGHUP reload applies the same rule (docs/routes-api.md).
 */
describe('reserved management paths in the one-process gateway', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  let call: Call;
  let token: string;

  before(async () => {
    upstream = await startTextUpstream('served');
    gateway = await startGatewayProcess({
      role: 'all',
      config: fileWith(upstream.origin),
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, JWT_SECRET: 'one-process-reserved-paths-secret-0123456789' },
    });
    call = caller(gateway);
    token = await login(call, ADMIN);
  });
  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const refusedOnPath = (res: { status: number; text: string; json<T>(): T }, routePath: string): void => {
    assert.equal(res.status, 400, res.text);
    const body = res.json<ErrorBody>();
    assert.equal(body.success, false);
    assert.equal(body.code, 'RESERVED_PATH');
    assert.deepEqual(body.details.fields.map((f) => [f.field, f.code]), [['path', 'RESERVED_PATH']]);
    assert.match(body.error, new RegExp(`^${routePath.replace(/[*/]/g, '\\$&')} is under /(api|admin|internal), which the management API serves`));
  };

  test('POST /api/routes under /api, /admin or /internal: 400 RESERVED_PATH on path, nothing created; look-alikes are fine', async () => {
    for (const routePath of ['/api/*', '/api', '/admin/*', '/admin', '/internal/cluster/x']) {
      const res = await call('POST', '/api/routes', { token, body: { id: 'reserved', path: routePath, upstream: upstream.origin } });
      refusedOnPath(res, routePath);
    }
    assert.equal((await call('GET', '/api/routes/reserved', { token })).status, 404);
    const lookAlike = await call('POST', '/api/routes', { token, body: { id: 'apis', path: '/apis/*', upstream: upstream.origin } });
    assert.equal(lookAlike.status, 201, lookAlike.text);
  });

  test('PUT and PATCH that move a route under /admin or /api: 400 on path, the route unchanged', async () => {
    refusedOnPath(await call('PUT', '/api/routes/apis', { token, body: { path: '/admin/*', upstream: upstream.origin } }), '/admin/*');
    refusedOnPath(await call('PATCH', '/api/routes/apis', { token, body: { path: '/api/v2/*' } }), '/api/v2/*');
    const stored = await call('GET', '/api/routes/apis', { token });
    assert.equal(stored.json<{ data: { path: string } }>().data.path, '/apis/*');
  });

  test('SIGHUP with a proxy.yml route under /api is refused by name; the route table is unchanged', async () => {
    const before = (await call('GET', '/api/routes?limit=100', { token })).json<{ data: Array<{ id: string; path: string }> }>().data;
    gateway.writeConfig(fileWith(upstream.origin, `  - { id: shadowed, path: /api/things/*, upstream: "${upstream.origin}" }\n  - { id: fresh, path: /fresh/*, upstream: "${upstream.origin}" }\n`));
    // The dry run refuses it just as the reload will.
    const dryRun = await runGateway(['config:reload', '--dry-run', '--config', gateway.configPath, '--data-dir', gateway.dataDir], { cwd: gateway.dir });
    assert.equal(dryRun.code, 1, dryRun.stdout + dryRun.stderr);
    assert.match(dryRun.stderr, /proxy\.yml:4 routes\[1\]\.path: \/api\/things\/\* is under \/api/);
    gateway.signal('SIGHUP');
    await gateway.waitForOutput('SIGHUP reload rejected');

    const status = JSON.parse(readFileSync(path.join(gateway.dataDir, 'reload-status.json'), 'utf8')) as { ok: boolean; errors: Array<{ field: string; code: string; line?: number; message: string }> };
    assert.equal(status.ok, false);
    assert.deepEqual(status.errors.map((e) => [e.field, e.code, e.line]), [['routes[1].path', 'RESERVED_PATH', 4]]);
    assert.match(status.errors[0]!.message, /\/api\/things\/\* is under \/api/);

    const afterReload = (await call('GET', '/api/routes?limit=100', { token })).json<{ data: Array<{ id: string; path: string }> }>().data;
    assert.deepEqual(afterReload, before, 'the invalid file changed nothing');
    assert.equal((await request(`${gateway.url}/fresh/x`)).status, 404, 'not even the valid routes of the refused file');
    assert.equal((await request(`${gateway.url}/ok/x`)).text, 'served');
  });
});

describe('the control-plane role reserves no path (its data planes serve no /api)', () => {
  let cp: ControlPlaneProcess;
  before(async () => {
    cp = await startControlPlaneProcess({ env: { JWT_SECRET: 'control-plane-role-reserved-0123456789abcdef', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } });
  });
  after(async () => {
    await cp?.stop();
  });

  test('POST /api/routes with path /api/users/* is created', async () => {
    const call = caller(cp);
    const token = await login(call, ADMIN);
    const res = await call('POST', '/api/routes', { token, body: { path: '/api/users/*', upstream: 'http://127.0.0.1:9' } });
    assert.equal(res.status, 201, res.text);
  });
});
