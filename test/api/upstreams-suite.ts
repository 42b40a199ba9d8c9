import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTestCa, request, type ClientResponse, type TestCa } from '@gateway/testing';
import { managementToken } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import type { RoutesSuiteDatabase } from './routes-suite';

const JWT_SECRET = 'upstreams-e2e-secret-0123456789abcdefghijkl';
const FILE_CONFIG = `
version: "1.0.0"
upstreams:
  - { name: file-svc, url: "http://127.0.0.1:9/v1" }
routes:
  - { id: from-file, path: /from-file/*, upstream: file-svc }
`;

type Json = Record<string, unknown>;
interface Target {
  url: string;
  weight: number;
}
type UpstreamJson = Json & { name: string; targets: Target[]; source: string; createdAt?: string; updatedAt?: string };
interface FieldProblem {
  field: string;
  message: string;
  code: string;
}

/**
 * /api/upstreams against a control plane process (its own database): CRUD, the route model's
 * validation with field-named errors, proxy.yml upstreams read-only, names unique across file and
 * API, routes naming upstreams, 409 while a route names one, audit entries, admin tier.
 */
export function upstreamsApiSuite(db: RoutesSuiteDatabase): void {
  describe(`upstreams management API (${db.label})`, () => {
    let cp: ControlPlaneProcess;
    // The CA's own directory is the one CA directory (GATEWAY_CA_DIRS): it also holds the CA's private key.
    let ca: TestCa;
    const admin = managementToken(JWT_SECRET, 'admin', { email: 'upstream-admin@example.com' });
    const user = managementToken(JWT_SECRET, 'user');

    before(async () => {
      const env = await db.setUp();
      ca = makeTestCa('upstreams API CA');
      cp = await startControlPlaneProcess({ config: FILE_CONFIG, env: { ...env, JWT_SECRET, GATEWAY_CA_DIRS: path.dirname(ca.certPath) } });
    });
    after(async () => {
      await cp?.stop();
      await db.tearDown();
      ca?.remove();
    });

    const call = (method: string, urlPath: string, body?: unknown, bearer: string | null = admin): Promise<ClientResponse> =>
      request(`${cp.url}${urlPath}`, {
        method,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const data = <T>(res: ClientResponse): T => res.json<{ data: T }>().data;
    const fields = (res: ClientResponse): FieldProblem[] => (res.json<{ details?: { fields?: FieldProblem[] } }>().details?.fields ?? []);

    test('create with the url shorthand: 201, targets filled with weight 100, round-robin, source api, ISO timestamps', async () => {
      const res = await call('POST', '/api/upstreams', { name: 'orders', url: 'http://127.0.0.1:9101/v1' });
      assert.equal(res.status, 201, res.text);
      const created = data<UpstreamJson>(res);
      assert.deepEqual(created.targets, [{ url: 'http://127.0.0.1:9101/v1', weight: 100 }]);
      assert.equal(created['url'], undefined);
      assert.equal((created['balancing'] as Json)['algorithm'], 'round-robin');
      assert.equal(created.source, 'api');
      assert.match(String(created.createdAt), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const got = await call('GET', '/api/upstreams/orders');
      assert.equal(got.status, 200);
      assert.deepEqual(data(got), created);
    });

    test('list: proxy.yml and API upstreams together, by name, paginated; the file one has source file and no timestamps', async () => {
      assert.equal((await call('POST', '/api/upstreams', { name: 'a-first', targets: [{ url: 'http://127.0.0.1:9102' }, { url: 'http://127.0.0.1:9103', weight: 300 }] })).status, 201);
      const all = await call('GET', '/api/upstreams?limit=100');
      assert.equal(all.status, 200);
      const list = data<UpstreamJson[]>(all);
      assert.deepEqual(list.map((u) => [u.name, u.source]), [['a-first', 'api'], ['file-svc', 'file'], ['orders', 'api']]);
      const file = list.find((u) => u.name === 'file-svc')!;
      assert.deepEqual(file.targets, [{ url: 'http://127.0.0.1:9/v1', weight: 100 }]);
      assert.equal(file.createdAt, undefined);
      const page = await call('GET', '/api/upstreams?limit=1&offset=1');
      assert.deepEqual(page.json()['pagination'], { total: 3, limit: 1, offset: 1, hasMore: true });
      assert.deepEqual(data<UpstreamJson[]>(page).map((u) => u.name), ['file-svc']);
      assert.equal((await call('GET', '/api/upstreams?limit=0')).status, 400);
      assert.equal((await call('GET', '/api/upstreams?colour=red')).status, 400);
    });

    test('PUT replaces (omitted fields back to defaults, createdAt kept); PATCH merges; url in a patch replaces the targets', async () => {
      const before = data<UpstreamJson>(await call('GET', '/api/upstreams/a-first'));
      const put = await call('PUT', '/api/upstreams/a-first', { ...before, targets: [{ url: 'http://127.0.0.1:9104' }], balancing: { algorithm: 'least-connections' } });
      assert.equal(put.status, 200, put.text);
      const replaced = data<UpstreamJson>(put);
      assert.deepEqual(replaced.targets, [{ url: 'http://127.0.0.1:9104', weight: 100 }]);
      assert.equal(replaced.createdAt, before.createdAt);
      assert.ok(Date.parse(String(replaced.updatedAt)) >= Date.parse(String(before.updatedAt)));

      const patched = await call('PATCH', '/api/upstreams/a-first', { balancing: { algorithm: 'consistent-hash', hashOn: 'header', hashKey: 'x-user' } });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(data<UpstreamJson>(patched)['balancing'], { algorithm: 'consistent-hash', hashOn: 'header', hashKey: 'x-user' });
      assert.deepEqual(data<UpstreamJson>(patched).targets, [{ url: 'http://127.0.0.1:9104', weight: 100 }]);

      const shorthand = await call('PATCH', '/api/upstreams/a-first', { url: 'http://127.0.0.1:9105' });
      assert.equal(shorthand.status, 200, shorthand.text);
      assert.deepEqual(data<UpstreamJson>(shorthand).targets, [{ url: 'http://127.0.0.1:9105', weight: 100 }]);
    });

    test('bad bodies: 400 naming every failing field, nothing written', async () => {
      const cases: Array<{ body: unknown; fields: string[] }> = [
        { body: { name: 'bad-1', targets: [{ url: 'http://127.0.0.1:1' }, { url: 'ftp://x' }] }, fields: ['targets[1].url'] },
        { body: { name: 'bad-2', targets: [{ url: 'http://127.0.0.1:1', weight: 0 }] }, fields: ['targets[0].weight'] },
        { body: { name: 'bad-3', url: 'http://127.0.0.1:1', targets: [{ url: 'http://127.0.0.1:2' }] }, fields: ['targets'] },
        { body: { name: 'bad-4' }, fields: ['url'] },
        { body: { name: 'bad 5', url: 'http://127.0.0.1:1', colour: 'red' }, fields: ['name', 'colour'] },
        { body: { name: 'bad-6', url: 'http://127.0.0.1:1', balancing: { algorithm: 'consistent-hash', hashOn: 'cookie' } }, fields: ['balancing.hashKey'] },
        { body: [1, 2], fields: ['(body)'] },
      ];
      for (const { body, fields: expected } of cases) {
        const res = await call('POST', '/api/upstreams', body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.json()['success'], false);
        assert.deepEqual(fields(res).map((f) => f.field).sort(), [...expected].sort(), JSON.stringify(body));
      }
      assert.equal((await call('PATCH', '/api/upstreams/orders', { targets: [] })).status, 400);
      const renamed = await call('PUT', '/api/upstreams/orders', { name: 'renamed', url: 'http://127.0.0.1:9101' });
      assert.equal(renamed.status, 400);
      assert.deepEqual(fields(renamed).map((f) => f.field), ['name']);
      const names = data<UpstreamJson[]>(await call('GET', '/api/upstreams?limit=100')).map((u) => u.name);
      assert.ok(!names.some((n) => n.startsWith('bad') || n === 'renamed'), names.join());
    });

    test('tls.caFile: inside GATEWAY_CA_DIRS and a PEM bundle of certificates, else 400 on the field; nothing read is echoed', async () => {
      const dir = path.dirname(ca.certPath);
      const created = await call('POST', '/api/upstreams', { name: 'tls-ok', url: 'https://127.0.0.1:9443', tls: { caFile: ca.certPath } });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(data<UpstreamJson>(created)['tls'], { caFile: ca.certPath });
      symlinkSync('/etc/passwd', path.join(dir, 'passwd.pem'));
      const outside = `tls.caFile must be inside a CA directory (GATEWAY_CA_DIRS: ${dir})`;
      const cases: Array<{ caFile: string; message: string }> = [
        { caFile: '/etc/shadow', message: outside },
        { caFile: '/etc/no-such-file', message: outside },
        { caFile: dir, message: outside },
        { caFile: `${dir}/../../etc/shadow`, message: "tls.caFile must not contain '..' segments" },
        { caFile: 'ca.pem', message: 'tls.caFile must be an absolute path' },
        { caFile: path.join(dir, 'absent.pem'), message: `tls.caFile: ${path.join(dir, 'absent.pem')} does not exist` },
        { caFile: path.join(dir, 'ca.key'), message: `tls.caFile: ${path.join(dir, 'ca.key')} holds a PEM block that is not a certificate` },
        { caFile: path.join(dir, 'passwd.pem'), message: `tls.caFile: ${path.join(dir, 'passwd.pem')} leads out of the CA directories (a symbolic link)` },
      ];
      for (const { caFile, message } of cases) {
        const res = await call('POST', '/api/upstreams', { name: 'tls-bad', url: 'https://127.0.0.1:9443', tls: { caFile } });
        assert.equal(res.status, 400, caFile);
        assert.deepEqual(
          { success: res.json()['success'], code: res.json()['code'], fields: fields(res) },
          { success: false, code: 'VALIDATION_ERROR', fields: [{ field: 'tls.caFile', message, code: 'VALIDATION_ERROR' }] },
          caFile,
        );
        assert.ok(!/PRIVATE|BEGIN|root:/.test(res.text), `nothing read from ${caFile} is in the answer`);
      }
      // PUT and PATCH are checked the same way; the stored upstream is untouched.
      const patched = await call('PATCH', '/api/upstreams/tls-ok', { tls: { caFile: '/etc/passwd' } });
      assert.equal(patched.status, 400);
      assert.deepEqual(fields(patched).map((f) => f.field), ['tls.caFile']);
      const put = await call('PUT', '/api/upstreams/tls-ok', { name: 'tls-ok', url: 'https://127.0.0.1:9443', tls: { caFile: path.join(dir, 'ca.key') } });
      assert.equal(put.status, 400);
      assert.deepEqual(data<UpstreamJson>(await call('GET', '/api/upstreams/tls-ok'))['tls'], { caFile: ca.certPath });
      assert.equal((await call('GET', '/api/upstreams/tls-bad')).status, 404);
      assert.equal((await call('DELETE', '/api/upstreams/tls-ok')).status, 204);
    });

    test('names are unique across proxy.yml and the API: 409 CONFLICT on name', async () => {
      for (const name of ['orders', 'file-svc']) {
        const res = await call('POST', '/api/upstreams', { name, url: 'http://127.0.0.1:9199' });
        assert.equal(res.status, 409, name);
        assert.equal(res.json()['code'], 'CONFLICT');
        assert.deepEqual(fields(res).map((f) => f.field), ['name']);
      }
    });

    test('proxy.yml upstreams are read-only: PUT, PATCH and DELETE answer 422 READ_ONLY_UPSTREAM and change nothing', async () => {
      const before = data<UpstreamJson>(await call('GET', '/api/upstreams/file-svc'));
      for (const [method, body] of [['PUT', { name: 'file-svc', url: 'http://127.0.0.1:9198' }], ['PATCH', { url: 'http://127.0.0.1:9198' }], ['DELETE', undefined]] as const) {
        const res = await call(method, '/api/upstreams/file-svc', body);
        assert.equal(res.status, 422, method);
        assert.equal(res.json()['code'], 'READ_ONLY_UPSTREAM', method);
      }
      assert.deepEqual(data(await call('GET', '/api/upstreams/file-svc')), before);
    });

    test('unknown names: 404 UPSTREAM_NOT_FOUND on get, put, patch and delete', async () => {
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
        const res = await call(method, '/api/upstreams/nothing-here', method === 'PUT' || method === 'PATCH' ? { url: 'http://127.0.0.1:1' } : undefined);
        assert.equal(res.status, 404, method);
        assert.deepEqual({ code: res.json()['code'], error: res.json()['error'] }, { code: 'UPSTREAM_NOT_FOUND', error: 'Upstream not found' }, method);
      }
    });

    test('routes name API and file upstreams; an unknown name is a 400 on the field; GET answers can be sent back', async () => {
      const named = await call('POST', '/api/routes', { id: 'names-orders', path: '/orders/*', upstream: 'orders' });
      assert.equal(named.status, 201, named.text);
      assert.equal(data<Json>(named)['upstreamName'], 'orders');
      const file = await call('POST', '/api/routes', { id: 'names-file', path: '/file-named/*', target: 'file-svc' });
      assert.equal(file.status, 201, file.text);
      assert.equal(data<Json>(file)['upstreamName'], 'file-svc');

      for (const [field, body] of [['upstream', { path: '/typo/*', upstream: 'ordrs' }], ['target', { path: '/typo2/*', target: 'ordrs' }]] as const) {
        const res = await call('POST', '/api/routes', body);
        assert.equal(res.status, 400, field);
        assert.equal(res.json()['code'], 'INVALID_URL');
        assert.deepEqual(fields(res).map((f) => f.field), [field]);
        assert.match(fields(res)[0]!.message, /nor the name of an upstream/);
      }

      // A GET answer sent back keeps naming the upstream; a patch that does not touch upstream too.
      const got = data<Json>(await call('GET', '/api/routes/names-orders'));
      const put = await call('PUT', '/api/routes/names-orders', { ...got, description: 'sent back' });
      assert.equal(put.status, 200, put.text);
      assert.equal(data<Json>(put)['upstreamName'], 'orders');
      const patched = await call('PATCH', '/api/routes/names-orders', { description: 'patched' });
      assert.equal(data<Json>(patched)['upstreamName'], 'orders');
      // Pointing it at a URL ends the reference.
      const direct = await call('PATCH', '/api/routes/names-file', { upstream: 'http://127.0.0.1:9197' });
      assert.equal(direct.status, 200, direct.text);
      assert.equal(data<Json>(direct)['upstreamName'], undefined);
    });

    test('deleting an upstream routes name is 409 UPSTREAM_IN_USE listing them (a soft-deleted route counts); free, it is deleted', async () => {
      const refused = await call('DELETE', '/api/upstreams/orders');
      assert.equal(refused.status, 409);
      assert.equal(refused.json()['code'], 'UPSTREAM_IN_USE');
      assert.deepEqual(refused.json<{ details: { routes: string[] } }>().details.routes, ['names-orders']);
      assert.equal((await call('DELETE', '/api/routes/names-orders')).status, 204);
      assert.equal((await call('DELETE', '/api/upstreams/orders')).status, 409, 'a hidden route could be restored');
      assert.equal((await call('DELETE', '/api/routes/names-orders?permanent=true')).status, 204);
      const deleted = await call('DELETE', '/api/upstreams/orders');
      assert.equal(deleted.status, 204);
      assert.equal(deleted.text, '');
      assert.equal((await call('GET', '/api/upstreams/orders')).status, 404);
      const orphan = await call('POST', '/api/routes', { path: '/orders/*', upstream: 'orders' });
      assert.equal(orphan.status, 400, 'the name is gone');
    });

    test('a proxy.yml reload may not take an API upstream\'s name nor drop an upstream API routes name; nothing is applied', async () => {
      assert.equal((await call('POST', '/api/routes', { id: 'names-file-2', path: '/file-named-2/*', upstream: 'file-svc' })).status, 201);
      const reload = async (yaml: string): Promise<boolean> => {
        const seen = cp.output.length;
        cp.writeConfig(yaml);
        cp.child.kill('SIGHUP');
        const deadline = Date.now() + 15_000;
        while (Date.now() < deadline) {
          const line = cp.output.slice(seen).find((l) => l.includes('"reconciled"'));
          if (line !== undefined) return (JSON.parse(line) as { ok: boolean }).ok;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error('no reconciliation outcome');
      };
      const taken = FILE_CONFIG.replace('upstreams:\n', 'upstreams:\n  - { name: a-first, url: "http://127.0.0.1:9/x" }\n');
      assert.equal(await reload(taken), false, 'a-first is an API upstream');
      assert.equal(await reload('version: "1.0.0"\nroutes: []\n'), false, 'names-file-2 names file-svc');
      const list = data<UpstreamJson[]>(await call('GET', '/api/upstreams?limit=100'));
      assert.deepEqual(list.map((u) => [u.name, u.source]), [['a-first', 'api'], ['file-svc', 'file']]);
      assert.equal((await call('GET', '/api/routes/from-file')).status, 200, 'the file routes were not touched');
      // Once no API route names it, the file may drop it.
      assert.equal((await call('DELETE', '/api/routes/names-file-2?permanent=true')).status, 204);
      assert.equal(await reload('version: "1.0.0"\nroutes: []\n'), true);
      assert.deepEqual(data<UpstreamJson[]>(await call('GET', '/api/upstreams?limit=100')).map((u) => u.name), ['a-first']);
    });

    test('every change is audited with the admin, the upstream name and its targets', async () => {
      const res = await call('GET', '/api/audit-log?limit=100');
      const entries = data<Array<{ actor: string; action: string; target: string; details: Json | null }>>(res).filter((e) => e.action.startsWith('upstream.'));
      const summary = entries.map((e) => `${e.action} ${e.target}`);
      for (const expected of ['upstream.create orders', 'upstream.create a-first', 'upstream.replace a-first', 'upstream.patch a-first', 'upstream.delete orders']) {
        assert.ok(summary.includes(expected), `${expected} in ${summary.join(', ')}`);
      }
      const create = entries.find((e) => e.action === 'upstream.create' && e.target === 'orders')!;
      assert.equal(create.actor, 'upstream-admin@example.com');
      assert.deepEqual(create.details?.['targets'], [{ url: 'http://127.0.0.1:9101/v1', weight: 100 }]);
      assert.ok(!summary.some((s) => s.includes('bad')), 'refused writes are not audited');
    });

    test('admin tier: no token 401, a user token 403, on reads and writes', async () => {
      for (const [method, body] of [['GET', undefined], ['POST', { name: 'x-tier', url: 'http://127.0.0.1:1' }]] as const) {
        assert.equal((await call(method, '/api/upstreams', body, null)).status, 401, method);
        assert.equal((await call(method, '/api/upstreams', body, user)).status, 403, method);
      }
    });
  });
}
