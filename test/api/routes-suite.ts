import { createHmac, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { createTestDatabase, refusedPort, request, startUpstream, type ClientResponse, type LoopbackUpstream, type TestDatabase } from '@gateway/testing';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

const JWT_SECRET = 'routes-e2e-secret-0123456789abcdefghijklmnop';
const CLUSTER_TOKEN = 'routes-e2e-cluster-token-0123456789';
const ADMIN = { email: 'admin@example.com', password: 'correct horse battery staple' };
const FILE_CONFIG = `
version: "1.0.0"
routes:
  - { id: from-file, path: /from-file/*, upstream: "http://127.0.0.1:9" }
`;

type Json = Record<string, unknown>;
type RouteJson = Json & { id: string; path: string; upstream: string; enabled: boolean; source: string; createdAt: string; updatedAt: string; deletedAt?: string };
interface FieldProblem {
  field: string;
  message: string;
  code: string;
}

/** An HS256 management token signed with the test's secret (decision 20 claims). */
function token(role: 'admin' | 'user', email = `${role}@example.com`): string {
  const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const body = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub: randomUUID(), email, role, iat: now, exp: now + 3600, iss: 'gateway', jti: randomUUID() })}`;
  return `${body}.${createHmac('sha256', JWT_SECRET).update(body).digest('base64url')}`;
}

/** Decision 1 on every /api answer, spec 9.2 headers on every answer, 204 without a body. */
function assertEnvelope(res: ClientResponse, what: string): void {
  assert.equal(res.headers['x-api-version'], '1.0.0', what);
  assert.ok(res.headers['x-correlation-id'], what);
  if (res.status === 204) {
    assert.equal(res.text, '', what);
    return;
  }
  assert.match(String(res.headers['content-type']), /application\/json/, what);
  const body = res.json();
  if (res.status < 400) {
    assert.equal(body['success'], true, what);
    assert.ok('data' in body, what);
    const keys = Object.keys(body).sort();
    if (Array.isArray(body['data'])) {
      assert.deepEqual(keys, ['data', 'pagination', 'success'], what);
      assert.deepEqual(Object.keys(body['pagination'] as Json).sort(), ['hasMore', 'limit', 'offset', 'total'], what);
    } else assert.deepEqual(keys, ['data', 'success'], what);
  } else {
    assert.equal(body['success'], false, what);
    assert.equal(typeof body['error'], 'string', what);
    assert.match(String(body['code']), /^[A-Z_]+$/, what);
    for (const key of Object.keys(body)) assert.ok(['success', 'error', 'code', 'details'].includes(key), `${what}: ${key}`);
  }
}

export interface RoutesSuiteDatabase {
  label: string;
  /** Env for the control plane (DATABASE_URL or nothing for SQLite). */
  setUp(): Promise<NodeJS.ProcessEnv>;
  /** Ages a hidden route's deletedAt by `days`. */
  ageDeletion(cp: ControlPlaneProcess, id: string, days: number): Promise<void>;
  tearDown(): Promise<void>;
}

export const SQLITE: RoutesSuiteDatabase = {
  label: 'SQLite',
  setUp: async () => ({}),
  ageDeletion: async (cp, id, days) => {
    const db = new Database(path.join(cp.dataDir, 'gateway.sqlite'));
    try {
      const at = new Date(Date.now() - days * 86_400_000).toISOString().replace('T', ' ').replace('Z', '');
      assert.equal(db.prepare(`UPDATE routes SET deleted_at = ? WHERE id = ?`).run(at, id).changes, 1);
    } finally {
      db.close();
    }
  },
  tearDown: async () => undefined,
};

export function postgres(): RoutesSuiteDatabase {
  let database: TestDatabase | undefined;
  return {
    label: 'PostgreSQL',
    setUp: async () => {
      // Fails (never skips) when PostgreSQL is unreachable.
      database = await createTestDatabase('routes_e2e');
      return { DATABASE_URL: database.url };
    },
    ageDeletion: async (_cp, id, days) => {
      const client = new Client({ connectionString: database!.url });
      await client.connect();
      try {
        const res = await client.query(`UPDATE routes SET deleted_at = now() - ($1 || ' days')::interval WHERE id = $2`, [String(days), id]);
        assert.equal(res.rowCount, 1);
      } finally {
        await client.end();
      }
    },
    tearDown: async () => database?.drop(),
  };
}

export function routesApiSuite(db: RoutesSuiteDatabase): void {
  describe(`routes management API (${db.label})`, () => {
    let cp: ControlPlaneProcess;
    let env: NodeJS.ProcessEnv;
    const admin = token('admin');
    const user = token('user');
    const upstreams: LoopbackUpstream[] = [];

    const start = async (dataDir?: string): Promise<ControlPlaneProcess> =>
      startControlPlaneProcess({ config: FILE_CONFIG, dataDir, env: { ...env, JWT_SECRET, CLUSTER_TOKEN, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } });

    before(async () => {
      env = await db.setUp();
      cp = await start();
    });
    after(async () => {
      await cp?.stop();
      for (const upstream of upstreams) await upstream.close();
      await db.tearDown();
    });

    const call = async (method: string, urlPath: string, options: { body?: unknown; as?: string | null; headers?: Record<string, string> } = {}): Promise<ClientResponse> => {
      const bearer = options.as === undefined ? admin : options.as;
      const res = await request(`${cp.url}${urlPath}`, {
        method,
        headers: {
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
          ...options.headers,
        },
        body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
      });
      assertEnvelope(res, `${method} ${urlPath} -> ${res.status} ${res.text.slice(0, 300)}`);
      return res;
    };
    const data = <T = RouteJson>(res: ClientResponse): T => res.json<{ data: T }>().data;
    const fields = (res: ClientResponse): FieldProblem[] => res.json<{ details: { fields: FieldProblem[] } }>().details.fields;
    const create = async (body: Json): Promise<RouteJson> => {
      const res = await call('POST', '/api/routes', { body });
      assert.equal(res.status, 201, res.text);
      return data(res);
    };
    const revision = async (): Promise<number> => {
      const res = await request(`${cp.url}/internal/cluster/snapshot`, { headers: { authorization: `Bearer ${CLUSTER_TOKEN}` } });
      assert.equal(res.status, 200, res.text);
      return res.json<{ version: number }>().version;
    };
    const uid = (): string => randomUUID().slice(0, 8);

    test('POST creates a canonical route (201): generated URL-safe id, defaults, source api, ISO timestamps', async () => {
      const before = await revision();
      const route = await create({ path: `/create-${uid()}/*`, upstream: 'http://127.0.0.1:9001/v1' });
      assert.match(route.id, /^[A-Za-z0-9_-]{1,64}$/);
      assert.equal(route.enabled, true);
      assert.equal(route.description, '');
      assert.equal(route.priority, 50);
      assert.deepEqual(route.tags, []);
      assert.deepEqual(route.timeout, { request: 5000 });
      assert.equal(route.source, 'api');
      assert.equal(new Date(route.createdAt).toISOString(), route.createdAt);
      assert.equal(route.updatedAt, route.createdAt);
      assert.equal(await revision(), before + 1, 'one change, one revision');
      const got = await call('GET', `/api/routes/${route.id}`);
      assert.equal(got.status, 200);
      assert.deepEqual(data(got), route);
    });

    test('a client id is kept when it matches [A-Za-z0-9_-]{1,64}; others are 400 naming id; a taken id is 409', async () => {
      const id = `client_id-${uid()}`;
      assert.equal((await create({ id, path: `/${id}`, upstream: 'http://127.0.0.1:9001' })).id, id);
      for (const bad of ['has space', 'a/b', 'x'.repeat(65), '', 'é']) {
        const res = await call('POST', '/api/routes', { body: { id: bad, path: `/bad-${uid()}`, upstream: 'http://127.0.0.1:9001' } });
        assert.equal(res.status, 400, bad);
        assert.deepEqual(fields(res).map((f) => f.field), ['id']);
      }
      const taken = await call('POST', '/api/routes', { body: { id, path: `/other-${uid()}`, upstream: 'http://127.0.0.1:9001' } });
      assert.equal(taken.status, 409);
      assert.equal(taken.json()['code'], 'CONFLICT');
    });

    test('websocket: true is stored with its limits filled; a bad websocket block is 400 naming its fields', async () => {
      const route = await create({ path: `/ws-${uid()}`, upstream: 'http://127.0.0.1:9001', websocket: true });
      assert.deepEqual(route['websocket'], { enabled: true, idleTimeout: 60000, maxConnections: 1000 });
      const bad = await call('POST', '/api/routes', { body: { path: `/ws-bad-${uid()}`, upstream: 'http://127.0.0.1:9001', websocket: { maxConnections: 0, idleTimeout: 'soon' } } });
      assert.equal(bad.status, 400);
      assert.deepEqual(fields(bad).map((f) => f.field).sort(), ['websocket.idleTimeout', 'websocket.maxConnections']);
    });

    test('variant B is normalized: target, timeout number, retryAttempts, rateLimiting, fractional threshold', async () => {
      const route = await create({
        path: `/variant-b-${uid()}`,
        target: 'https://example.com/base',
        timeout: 3000,
        retryAttempts: 2,
        rateLimiting: { enabled: true, requests: 10, window: 60 },
        circuitBreaker: { enabled: true, threshold: 0.5, timeout: 30000 },
        description: 'legacy',
        enabled: true,
      });
      assert.equal(route.upstream, 'https://example.com/base');
      assert.equal(route['target'], undefined);
      assert.equal((route['timeout'] as Json)['request'], 3000);
      assert.equal((route['retry'] as Json)['attempts'], 2);
      assert.deepEqual(route['rateLimit'], { enabled: true, max: 10, windowMs: 60000, strategy: 'token-bucket', scope: 'ip' });
      assert.equal((route['circuitBreaker'] as Json)['threshold'], 50);
      for (const key of ['retryAttempts', 'rateLimiting']) assert.ok(!(key in route), key);
      const conflict = await call('POST', '/api/routes', { body: { path: `/vb-${uid()}`, upstream: 'http://a.example', target: 'http://b.example' } });
      assert.equal(conflict.status, 400);
      assert.deepEqual(fields(conflict).map((f) => f.field), ['target']);
    });

    test('spec 7.2 messages word for word, every failing field in details, unknown fields named', async () => {
      const badPath = await call('POST', '/api/routes', { body: { path: 'no-slash', upstream: 'http://127.0.0.1:9001' } });
      assert.equal(badPath.status, 400);
      assert.deepEqual({ error: badPath.json()['error'], code: badPath.json()['code'] }, { error: 'Invalid path format', code: 'INVALID_PATH' });
      for (const p of ['/has space', '/a//b', '/a/b!']) assert.equal((await call('POST', '/api/routes', { body: { path: p, upstream: 'http://x.example' } })).json()['code'], 'INVALID_PATH', p);

      for (const upstream of ['ftp://example.com', 'not a url', 'http://', '/relative']) {
        const res = await call('POST', '/api/routes', { body: { path: `/u-${uid()}`, upstream } });
        assert.equal(res.status, 400, upstream);
        assert.deepEqual({ error: res.json()['error'], code: res.json()['code'] }, { error: 'Invalid URL', code: 'INVALID_URL' }, upstream);
      }
      const target = await call('POST', '/api/routes', { body: { path: `/t-${uid()}`, target: 'nope' } });
      assert.equal(target.json()['error'], 'Invalid URL');
      assert.deepEqual(fields(target).map((f) => f.field), ['target']);

      for (const timeout of [99, 60001, -5]) {
        const res = await call('POST', '/api/routes', { body: { path: `/to-${uid()}`, upstream: 'http://x.example', timeout } });
        assert.equal(res.status, 400, String(timeout));
        assert.equal(res.json()['code'], 'VALIDATION_ERROR');
        assert.deepEqual(fields(res).map((f) => f.field), ['timeout'], String(timeout));
      }
      const many = await call('POST', '/api/routes', {
        body: { path: 'bad', upstream: 'bad', retry: { attempts: 11 }, timeout: { request: 50 }, rateLimit: { max: 0 }, unknownField: 1, timout: 5 },
      });
      assert.equal(many.status, 400);
      assert.equal(many.json()['error'], 'Invalid path format');
      assert.deepEqual(fields(many).map((f) => f.field).sort(), ['path', 'rateLimit.max', 'retry.attempts', 'timeout.request', 'timout', 'unknownField', 'upstream']);
      const nested = await call('POST', '/api/routes', { body: { path: `/n-${uid()}`, upstream: 'http://x.example', retry: { atempts: 2 } } });
      assert.deepEqual(fields(nested).map((f) => f.field), ['retry.atempts']);
      const missing = await call('POST', '/api/routes', { body: {} });
      assert.deepEqual(fields(missing).map((f) => f.field).sort(), ['path', 'upstream']);
      for (const body of ['[]', '"text"', '{"path": ']) {
        const res = await call('POST', '/api/routes', { body });
        assert.equal(res.status, 400, body);
        assert.equal(res.json()['code'], 'VALIDATION_ERROR');
      }
    });

    test('access rules (ipRestriction, cors): stored canonical, and every bad field named with 400', async () => {
      const stored = await create({
        path: `/acl-${uid()}`,
        upstream: 'http://x.example',
        ipRestriction: { allow: ['10.0.0.0/8', '2001:db8::/32'], deny: ['10.0.0.9'] },
        cors: { origins: ['https://App.example.com', 'https://*.example.org'], methods: ['get'], exposedHeaders: ['x-total'], maxAge: 600 },
      });
      assert.deepEqual(stored['ipRestriction'], { enabled: true, allow: ['10.0.0.0/8', '2001:db8::/32'], deny: ['10.0.0.9'] });
      assert.deepEqual(stored['cors'], { enabled: true, origins: ['https://app.example.com', 'https://*.example.org'], methods: ['GET'], exposedHeaders: ['x-total'], credentials: false, maxAge: 600 });
      const read = await call('GET', `/api/routes/${stored.id}`);
      assert.deepEqual(data(read)['cors'], stored['cors']);

      const bad = await call('POST', '/api/routes', {
        body: { path: `/acl-${uid()}`, upstream: 'http://x.example', ipRestriction: { allow: ['10.0.0.0/99'] }, cors: { origins: ['https://ok.example', 'ftp://x'] } },
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.json()['code'], 'VALIDATION_ERROR');
      assert.deepEqual(fields(bad).map((f) => f.field).sort(), ['cors.origins[1]', 'ipRestriction.allow[0]']);
      const credentialed = await call('POST', '/api/routes', { body: { path: `/acl-${uid()}`, upstream: 'http://x.example', cors: { origins: ['*'], credentials: true } } });
      assert.equal(credentialed.status, 400);
      assert.deepEqual(fields(credentialed).map((f) => f.field), ['cors.credentials']);
      const empty = await call('PATCH', `/api/routes/${stored.id}`, { body: { ipRestriction: { allow: null, deny: null } } });
      assert.equal(empty.status, 400);
      assert.deepEqual(fields(empty).map((f) => f.field), ['ipRestriction']);
    });

    test("auth.jwt.secretEnv naming one of the gateway's own secrets is 400 naming the field, on POST and PATCH; a route's own variable is accepted", async () => {
      for (const name of ['JWT_SECRET', 'API_KEY_SECRET', 'CLUSTER_TOKEN']) {
        const res = await call('POST', '/api/routes', { body: { path: `/jwt-${uid()}`, upstream: 'http://x.example', auth: { type: 'jwt', jwt: { secretEnv: name } } } });
        assert.equal(res.status, 400, name);
        assert.equal(res.json()['code'], 'VALIDATION_ERROR', name);
        assert.deepEqual(fields(res).map((f) => f.field), ['auth.jwt.secretEnv'], name);
        assert.match(fields(res)[0]!.message, new RegExp(`may not name ${name}`), name);
      }
      const own = await create({ path: `/jwt-${uid()}`, upstream: 'http://x.example', auth: { type: 'jwt', jwt: { secretEnv: 'ROUTE_JWT_SECRET' } } });
      assert.equal((own['auth'] as { jwt: { secretEnv: string } }).jwt.secretEnv, 'ROUTE_JWT_SECRET');
      const patched = await call('PATCH', `/api/routes/${own.id}`, { body: { auth: { type: 'jwt', jwt: { secretEnv: 'JWT_SECRET' } } } });
      assert.equal(patched.status, 400);
      assert.deepEqual(fields(patched).map((f) => f.field), ['auth.jwt.secretEnv']);
      assert.equal((data(await call('GET', `/api/routes/${own.id}`))['auth'] as { jwt: { secretEnv: string } }).jwt.secretEnv, 'ROUTE_JWT_SECRET', 'the refused change was not stored');
    });

    test('409 "Path already exists" among enabled live routes; disabled drafts may share a path', async () => {
      const p = `/dup-${uid()}`;
      const first = await create({ path: p, upstream: 'http://127.0.0.1:9001' });
      const dup = await call('POST', '/api/routes', { body: { path: p, upstream: 'http://127.0.0.1:9002' } });
      assert.equal(dup.status, 409);
      assert.deepEqual({ error: dup.json()['error'], code: dup.json()['code'] }, { error: 'Path already exists', code: 'PATH_EXISTS' });
      const draft = await create({ path: p, upstream: 'http://127.0.0.1:9002', enabled: false });
      assert.equal(draft.enabled, false);
      // Enabling the draft (toggle, PUT, PATCH) while the path is taken: 409.
      assert.equal((await call('POST', `/api/routes/${draft.id}/toggle`)).status, 409);
      assert.equal((await call('PATCH', `/api/routes/${draft.id}`, { body: { enabled: true } })).status, 409);
      assert.equal((await call('PUT', `/api/routes/${draft.id}`, { body: { path: p, upstream: 'http://127.0.0.1:9002' } })).status, 409);
      // Once the first is disabled, the draft can be enabled; then the first cannot.
      assert.equal(data((await call('POST', `/api/routes/${first.id}/toggle`))).enabled, false);
      assert.equal(data((await call('POST', `/api/routes/${draft.id}/toggle`))).enabled, true);
      assert.equal((await call('POST', `/api/routes/${first.id}/toggle`)).status, 409);
      // A route may keep its own path on update.
      assert.equal((await call('PATCH', `/api/routes/${draft.id}`, { body: { description: 'same path' } })).status, 200);
    });

    test('concurrent creates on one path: exactly one 201, the rest 409 (the database enforces it too)', async () => {
      const p = `/race-${uid()}`;
      const results = await Promise.all(Array.from({ length: 8 }, () => call('POST', '/api/routes', { body: { path: p, upstream: 'http://127.0.0.1:9001' } })));
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
      for (const r of results.filter((x) => x.status === 409)) assert.equal(r.json()['error'], 'Path already exists');
    });

    test('404 "Route not found" on every :id endpoint for an unknown id', async () => {
      for (const [method, suffix, body] of [
        ['GET', '', undefined],
        ['PUT', '', { path: '/x', upstream: 'http://x.example' }],
        ['PATCH', '', { description: 'x' }],
        ['DELETE', '', undefined],
        ['DELETE', '?permanent=true', undefined],
        ['POST', '/toggle', undefined],
        ['POST', '/clone', undefined],
        ['POST', '/restore', undefined],
        ['POST', '/test', {}],
      ] as const) {
        const res = await call(method, `/api/routes/nope-${uid()}${suffix}`, { body });
        assert.equal(res.status, 404, `${method} ${suffix}`);
        assert.deepEqual(res.json(), { success: false, error: 'Route not found', code: 'ROUTE_NOT_FOUND' });
      }
    });

    test('PUT replaces the whole route (omitted optional fields back to defaults); PATCH merges', async () => {
      const route = await create({ path: `/put-${uid()}`, upstream: 'http://127.0.0.1:9001', description: 'd', tags: ['a'], priority: 7, timeout: { request: 2000, connect: 500 } });
      await new Promise((r) => setTimeout(r, 5));
      const patched = data(await call('PATCH', `/api/routes/${route.id}`, { body: { description: 'patched', timeout: 3000 } }));
      assert.equal(patched.description, 'patched');
      assert.deepEqual(patched.tags, ['a']);
      assert.equal(patched['priority'], 7);
      assert.deepEqual(patched['timeout'], { request: 3000, connect: 500 });
      assert.equal(patched.createdAt, route.createdAt);
      assert.ok(patched.updatedAt > route.updatedAt);
      const cleared = data(await call('PATCH', `/api/routes/${route.id}`, { body: { tags: null, target: 'http://127.0.0.1:9002' } }));
      assert.deepEqual(cleared.tags, []);
      assert.equal(cleared.upstream, 'http://127.0.0.1:9002');

      const replaced = await call('PUT', `/api/routes/${route.id}`, { body: { ...data<RouteJson>(await call('GET', `/api/routes/${route.id}`)), description: undefined, priority: undefined, timeout: undefined, tags: undefined } });
      assert.equal(replaced.status, 200, replaced.text);
      const full = data(replaced);
      assert.equal(full.description, '');
      assert.equal(full['priority'], 50);
      assert.deepEqual(full['timeout'], { request: 5000 });
      assert.equal(full.id, route.id);
      assert.equal(full.createdAt, route.createdAt);
      assert.equal(full.source, 'api');

      const minimal = data(await call('PUT', `/api/routes/${route.id}`, { body: { path: route.path, upstream: 'http://127.0.0.1:9003' } }));
      assert.equal(minimal.upstream, 'http://127.0.0.1:9003');
      const changeId = await call('PUT', `/api/routes/${route.id}`, { body: { id: 'other', path: route.path, upstream: 'http://127.0.0.1:9003' } });
      assert.equal(changeId.status, 400);
      assert.deepEqual(fields(changeId).map((f) => f.field), ['id']);
      const badPatch = await call('PATCH', `/api/routes/${route.id}`, { body: { upstream: 'nope', bogus: true } });
      assert.equal(badPatch.status, 400);
      assert.equal(badPatch.json()['error'], 'Invalid URL');
      assert.deepEqual(fields(badPatch).map((f) => f.field).sort(), ['bogus', 'upstream']);
      const missing = await call('PUT', `/api/routes/${route.id}`, { body: { description: 'no path' } });
      assert.equal(missing.status, 400);
      assert.deepEqual(fields(missing).map((f) => f.field).sort(), ['path', 'upstream']);
    });

    test('toggle flips enabled (200) and bumps the revision', async () => {
      const route = await create({ path: `/toggle-${uid()}`, upstream: 'http://127.0.0.1:9001' });
      const v = await revision();
      const off = await call('POST', `/api/routes/${route.id}/toggle`);
      assert.equal(off.status, 200);
      assert.equal(data(off).enabled, false);
      assert.equal(data(await call('POST', `/api/routes/${route.id}/toggle`)).enabled, true);
      assert.equal(await revision(), v + 2);
    });

    test('clone: a disabled copy <id>-copy, then -copy-2 (201), that may share the path', async () => {
      const id = `orig-${uid()}`;
      const original = await create({ id, path: `/${id}/*`, upstream: 'http://127.0.0.1:9001', tags: ['t'] });
      const first = await call('POST', `/api/routes/${id}/clone`);
      assert.equal(first.status, 201);
      const copy = data(first);
      assert.equal(copy.id, `${id}-copy`);
      assert.equal(copy.enabled, false);
      assert.equal(copy.path, original.path);
      assert.deepEqual(copy['tags'], ['t']);
      assert.equal(copy.source, 'api');
      assert.equal(data(await call('POST', `/api/routes/${id}/clone`)).id, `${id}-copy-2`);
      assert.equal(data(await call('POST', `/api/routes/${id}/clone`)).id, `${id}-copy-3`);
      assert.equal(data(await call('POST', `/api/routes/${id}-copy/clone`)).id, `${id}-copy-copy`);
      const long = await create({ id: 'L'.repeat(64), path: `/long-${uid()}`, upstream: 'http://127.0.0.1:9001' });
      const longCopy = data(await call('POST', `/api/routes/${long.id}/clone`));
      assert.equal(longCopy.id, `${'L'.repeat(59)}-copy`);
    });

    test('soft delete (204) hides the route; ?deleted=true lists it with deletedAt; restore brings it back', async () => {
      const route = await create({ path: `/soft-${uid()}`, upstream: 'http://127.0.0.1:9001' });
      const v = await revision();
      const del = await call('DELETE', `/api/routes/${route.id}`);
      assert.equal(del.status, 204);
      assert.equal(await revision(), v + 1);
      assert.equal((await call('GET', `/api/routes/${route.id}`)).status, 404);
      assert.equal((await call('DELETE', `/api/routes/${route.id}`)).status, 404, 'hiding twice');
      assert.equal((await call('PATCH', `/api/routes/${route.id}`, { body: { description: 'x' } })).status, 404);
      const live = data<RouteJson[]>(await call('GET', '/api/routes?limit=100'));
      assert.ok(!live.some((r) => r.id === route.id));
      const hidden = data<RouteJson[]>(await call('GET', '/api/routes?deleted=true&limit=100'));
      const entry = hidden.find((r) => r.id === route.id);
      assert.ok(entry);
      assert.equal(new Date(entry.deletedAt!).toISOString(), entry.deletedAt);
      assert.ok(hidden.every((r) => typeof r.deletedAt === 'string'));

      // While hidden, its path is free; restoring it then conflicts.
      const squatter = await create({ path: route.path, upstream: 'http://127.0.0.1:9002' });
      const conflict = await call('POST', `/api/routes/${route.id}/restore`);
      assert.equal(conflict.status, 409);
      assert.equal(conflict.json()['error'], 'Path already exists');
      await call('DELETE', `/api/routes/${squatter.id}?permanent=true`);
      const restored = await call('POST', `/api/routes/${route.id}/restore`);
      assert.equal(restored.status, 200);
      assert.equal(data(restored).deletedAt, undefined);
      assert.equal(data(restored).enabled, true);
      assert.equal((await call('GET', `/api/routes/${route.id}`)).status, 200);
      const again = await call('POST', `/api/routes/${route.id}/restore`);
      assert.equal(again.status, 422);
      assert.equal(again.json()['code'], 'BUSINESS_RULE');
    });

    test('DELETE ?permanent=true purges at once (live or hidden); bad values of permanent are 400', async () => {
      const a = await create({ path: `/perm-${uid()}`, upstream: 'http://127.0.0.1:9001' });
      assert.equal((await call('DELETE', `/api/routes/${a.id}?permanent=true`)).status, 204);
      assert.equal((await call('POST', `/api/routes/${a.id}/restore`)).status, 404);
      const b = await create({ path: `/perm-${uid()}`, upstream: 'http://127.0.0.1:9001' });
      await call('DELETE', `/api/routes/${b.id}`);
      assert.equal((await call('DELETE', `/api/routes/${b.id}?permanent=true`)).status, 204);
      assert.ok(!data<RouteJson[]>(await call('GET', '/api/routes?deleted=true&limit=100')).some((r) => r.id === b.id));
      const bad = await call('DELETE', `/api/routes/${a.id}?permanent=yes&force=1`);
      assert.equal(bad.status, 400);
      assert.deepEqual(fields(bad).map((f) => f.field).sort(), ['force', 'permanent']);
    });

    test('list: pagination, search, enabled, tag, deleted; unknown or bad parameters are 400 naming them', async () => {
      const tag = `tag-${uid()}`;
      const word = `Needle${uid()}`;
      const made: RouteJson[] = [];
      for (let i = 0; i < 5; i += 1) {
        made.push(await create({ path: `/list-${uid()}/${i}`, upstream: 'http://127.0.0.1:9001', tags: [tag, `other-${i}`], enabled: i % 2 === 0, description: i === 3 ? `has ${word} inside` : '' }));
      }
      const page = await call('GET', `/api/routes?tag=${tag}&limit=2&offset=0`);
      assert.deepEqual(page.json()['pagination'], { total: 5, limit: 2, offset: 0, hasMore: true });
      assert.deepEqual(data<RouteJson[]>(page).map((r) => r.id), made.slice(0, 2).map((r) => r.id), 'ordered by createdAt');
      const last = await call('GET', `/api/routes?tag=${tag}&limit=2&offset=4`);
      assert.deepEqual(last.json()['pagination'], { total: 5, limit: 2, offset: 4, hasMore: false });
      assert.deepEqual(data<RouteJson[]>(last).map((r) => r.id), [made[4]!.id]);
      const beyond = await call('GET', `/api/routes?tag=${tag}&offset=50`);
      assert.deepEqual(data(beyond), []);

      const defaults = await call('GET', '/api/routes');
      assert.equal((defaults.json()['pagination'] as Json)['limit'], 10);
      assert.equal((defaults.json()['pagination'] as Json)['offset'], 0);

      const enabled = data<RouteJson[]>(await call('GET', `/api/routes?tag=${tag}&enabled=true`));
      assert.deepEqual(enabled.map((r) => r.id), [made[0]!.id, made[2]!.id, made[4]!.id]);
      const disabled = data<RouteJson[]>(await call('GET', `/api/routes?tag=${tag}&enabled=false`));
      assert.deepEqual(disabled.map((r) => r.id), [made[1]!.id, made[3]!.id]);
      // Search: case-insensitive substring of path or description; % and _ are literal.
      assert.deepEqual(data<RouteJson[]>(await call('GET', `/api/routes?search=${word.toLowerCase()}`)).map((r) => r.id), [made[3]!.id]);
      const byPath = made[1]!.path.toUpperCase();
      assert.deepEqual(data<RouteJson[]>(await call('GET', `/api/routes?search=${encodeURIComponent(byPath)}`)).map((r) => r.id), [made[1]!.id]);
      assert.deepEqual(data(await call('GET', `/api/routes?search=${encodeURIComponent('%')}&tag=${tag}`)), []);
      // A tag matches whole tags only.
      assert.deepEqual(data(await call('GET', `/api/routes?tag=${tag.slice(0, -1)}`)), []);
      assert.equal(data<RouteJson[]>(await call('GET', `/api/routes?tag=other-1`)).filter((r) => (r['tags'] as string[]).includes(tag)).length, 1);
      await call('DELETE', `/api/routes/${made[0]!.id}`);
      assert.deepEqual(data<RouteJson[]>(await call('GET', `/api/routes?tag=${tag}&deleted=true`)).map((r) => r.id), [made[0]!.id]);
      assert.equal((await call('GET', `/api/routes?tag=${tag}&deleted=false`)).json<{ pagination: { total: number } }>().pagination.total, 4);

      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=abc', 'limit'],
        ['limit=1.5', 'limit'],
        ['offset=-1', 'offset'],
        ['enabled=yes', 'enabled'],
        ['deleted=1', 'deleted'],
        ['page=2', 'page'],
        ['tag=a&tag=b', 'tag'],
        ['sort=path', 'sort'],
      ] as const) {
        const res = await call('GET', `/api/routes?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.json()['code'], 'VALIDATION_ERROR');
        assert.deepEqual(fields(res).map((f) => f.field), [field], query);
      }
      assert.equal((await call('GET', '/api/routes?limit=100')).status, 200);
    });

    test('routes from proxy.yml: listed with source file, read-only (422 READ_ONLY_ROUTE) for every mutation, clonable', async () => {
      const got = await call('GET', '/api/routes/from-file');
      assert.equal(got.status, 200);
      assert.equal(data(got).source, 'file');
      const v = await revision();
      for (const [method, suffix, body] of [
        ['PUT', '', { path: '/from-file/*', upstream: 'http://127.0.0.1:9002' }],
        ['PATCH', '', { description: 'x' }],
        ['DELETE', '', undefined],
        ['DELETE', '?permanent=true', undefined],
        ['POST', '/toggle', undefined],
        ['POST', '/restore', undefined],
      ] as const) {
        const res = await call(method, `/api/routes/from-file${suffix}`, { body });
        assert.equal(res.status, 422, `${method} ${suffix}`);
        assert.equal(res.json()['code'], 'READ_ONLY_ROUTE');
      }
      assert.equal(await revision(), v, 'refused changes do not bump the revision');
      const clientFile = await create({ path: `/claims-${uid()}`, upstream: 'http://127.0.0.1:9001', source: 'file' });
      assert.equal(clientFile.source, 'api', 'a client cannot make a file route');
      const copy = await call('POST', '/api/routes/from-file/clone');
      assert.equal(copy.status, 201);
      assert.deepEqual([data(copy).id, data(copy).source, data(copy).enabled], ['from-file-copy', 'api', false]);
    });

    test('every change is in the audit log: who, what, when, from where', async () => {
      const route = await create({ path: `/audited-${uid()}`, upstream: 'http://127.0.0.1:9001' });
      await call('PATCH', `/api/routes/${route.id}`, { body: { description: 'x' } });
      await call('POST', `/api/routes/${route.id}/toggle`);
      await call('DELETE', `/api/routes/${route.id}`);
      const log = data<Array<{ actor: string; action: string; target: string; ip: string; at: string }>>(await call('GET', '/api/audit-log?limit=100'));
      const mine = log.filter((e) => e.target === route.id).map((e) => e.action).sort();
      assert.deepEqual(mine, ['route.create', 'route.delete', 'route.patch', 'route.toggle']);
      for (const entry of log.filter((e) => e.target === route.id)) {
        assert.equal(entry.actor, 'admin@example.com');
        assert.match(entry.ip, /127\.0\.0\.1/);
        assert.ok(!Number.isNaN(Date.parse(entry.at)));
      }
    });

    test('POST /:id/test sends the request to the upstream, rewritten as the data plane does', async () => {
      const upstream = await startUpstream();
      upstreams.push(upstream);
      const route = await create({ path: `/svc-${uid()}/*`, upstream: `${upstream.origin}/v1`, methods: ['GET', 'POST'] });
      const res = await call('POST', `/api/routes/${route.id}/test`, {
        body: { method: 'POST', path: `${route.path.slice(0, -2)}/users/1?x=1`, headers: { 'x-probe': 'yes' }, body: { hello: 'world' } },
      });
      assert.equal(res.status, 200);
      const result = data<{ url: string; status: number; latencyMs: number; headers: Json; bodyPreview: string; truncated: boolean }>(res);
      assert.equal(result.status, 200);
      assert.equal(typeof result.latencyMs, 'number');
      assert.equal(result.truncated, false);
      assert.match(String(result.headers['content-type']), /application\/json/);
      const seen = JSON.parse(result.bodyPreview) as { method: string; url: string; headers: Json; body: string };
      assert.equal(seen.method, 'POST');
      assert.equal(seen.url, '/v1/users/1?x=1');
      assert.equal(seen.headers['x-probe'], 'yes');
      assert.deepEqual(JSON.parse(seen.body), { hello: 'world' });
      assert.equal(result.url, `${upstream.origin}/v1/users/1?x=1`);

      // No body: GET of the pattern's literal part.
      const plain = data<{ bodyPreview: string }>(await call('POST', `/api/routes/${route.id}/test`));
      assert.equal((JSON.parse(plain.bodyPreview) as { url: string }).url, '/v1');

      const badInput = await call('POST', `/api/routes/${route.id}/test`, { body: { method: 'BREW', path: 'relative', headers: { 'bad name': 'x', host: 'evil' }, extra: 1 } });
      assert.equal(badInput.status, 400);
      assert.deepEqual(fields(badInput).map((f) => f.field).sort(), ['extra', 'headers.bad name', 'headers.host', 'method', 'path']);
      const otherPath = await call('POST', `/api/routes/${route.id}/test`, { body: { path: '/elsewhere' } });
      assert.equal(otherPath.status, 400);
      assert.deepEqual(fields(otherPath).map((f) => f.field), ['path']);
      const otherMethod = await call('POST', `/api/routes/${route.id}/test`, { body: { method: 'DELETE' } });
      assert.deepEqual(fields(otherMethod).map((f) => f.field), ['method']);
      const bigBody = await call('POST', `/api/routes/${route.id}/test`, { body: { body: 'x'.repeat(70_000) } });
      assert.deepEqual(fields(bigBody).map((f) => f.field), ['body']);
    });

    test('POST /:id/test: a large answer is previewed (4 KiB, truncated), unreachable and slow upstreams are reported in a 200', async () => {
      const big = await startUpstream({ handler: (_req, res) => res.end('y'.repeat(100_000)) });
      const silent = await startUpstream({ handler: () => undefined });
      upstreams.push(big, silent);
      const large = await create({ path: `/big-${uid()}`, upstream: big.origin, enabled: false });
      const preview = data<{ status: number; bodyPreview: string; truncated: boolean }>(await call('POST', `/api/routes/${large.id}/test`));
      assert.equal(preview.status, 200);
      assert.equal(preview.bodyPreview, 'y'.repeat(4096));
      assert.equal(preview.truncated, true);

      const port = await refusedPort();
      const down = await create({ path: `/down-${uid()}`, upstream: `http://127.0.0.1:${port}` });
      const unreachable = await call('POST', `/api/routes/${down.id}/test`);
      assert.equal(unreachable.status, 200);
      assert.equal(data<Json>(unreachable)['error'], 'UPSTREAM_UNREACHABLE');

      const slow = await create({ path: `/slow-${uid()}`, upstream: silent.origin, timeout: { request: 200 } });
      const timedOut = data<Json>(await call('POST', `/api/routes/${slow.id}/test`));
      assert.equal(timedOut['error'], 'UPSTREAM_TIMEOUT');
    });

    test('401 anonymous, 403 user, 2xx admin on every routes endpoint', async () => {
      const id = `authz-${uid()}`;
      const upstream = await startUpstream();
      upstreams.push(upstream);
      const steps: Array<[string, string, unknown, number]> = [
        ['GET', '/api/routes', undefined, 200],
        ['POST', '/api/routes', { id, path: `/${id}`, upstream: upstream.origin }, 201],
        ['GET', `/api/routes/${id}`, undefined, 200],
        ['PUT', `/api/routes/${id}`, { path: `/${id}`, upstream: upstream.origin }, 200],
        ['PATCH', `/api/routes/${id}`, { description: 'x' }, 200],
        ['POST', `/api/routes/${id}/toggle`, undefined, 200],
        ['POST', `/api/routes/${id}/clone`, undefined, 201],
        ['POST', `/api/routes/${id}/test`, {}, 200],
        ['DELETE', `/api/routes/${id}`, undefined, 204],
        ['POST', `/api/routes/${id}/restore`, undefined, 200],
        ['DELETE', `/api/routes/${id}?permanent=true`, undefined, 204],
      ];
      for (const [method, urlPath, body, status] of steps) {
        const anonymous = await call(method, urlPath, { body, as: null });
        assert.equal(anonymous.status, 401, `${method} ${urlPath}`);
        assert.deepEqual(anonymous.json(), { success: false, error: 'Unauthorized', code: 'UNAUTHORIZED' });
        const forbidden = await call(method, urlPath, { body, as: user });
        assert.equal(forbidden.status, 403, `${method} ${urlPath}`);
        assert.deepEqual(forbidden.json(), { success: false, error: 'Forbidden', code: 'FORBIDDEN' });
        const allowed = await call(method, urlPath, { body });
        assert.equal(allowed.status, status, `${method} ${urlPath}: ${allowed.text}`);
      }
    });

    test('routes hidden for more than 30 days are purged on start; younger ones stay', async () => {
      const old = await create({ path: `/old-${uid()}`, upstream: 'http://127.0.0.1:9001' });
      const young = await create({ path: `/young-${uid()}`, upstream: 'http://127.0.0.1:9001' });
      await call('DELETE', `/api/routes/${old.id}`);
      await call('DELETE', `/api/routes/${young.id}`);
      await db.ageDeletion(cp, old.id, 31);
      await db.ageDeletion(cp, young.id, 29);
      const dataDir = cp.dataDir;
      await cp.stop({ keepDir: true });
      cp = await start(dataDir);
      const hidden = data<RouteJson[]>(await call('GET', '/api/routes?deleted=true&limit=100')).map((r) => r.id);
      assert.ok(!hidden.includes(old.id), 'purged');
      assert.ok(hidden.includes(young.id), 'kept');
      assert.equal((await call('POST', `/api/routes/${old.id}/restore`)).status, 404);
      const log = data<Array<{ actor: string; action: string; details: { ids: string[] } }>>(await call('GET', '/api/audit-log?limit=100'));
      const purge = log.find((e) => e.action === 'route.purge.expired');
      assert.ok(purge);
      assert.equal(purge.actor, 'system');
      assert.deepEqual(purge.details.ids, [old.id]);
      // The first process's temp dir (the new process removes only its own).
      rmSync(path.dirname(dataDir), { recursive: true, force: true });
    });
  });
}
