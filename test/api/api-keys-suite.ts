import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { createTestDatabase, request, type ClientResponse, type TestDatabase } from '@gateway/testing';
import { caller, managementToken, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

export const JWT_SECRET = 'api-keys-e2e-jwt-secret-0123456789abcdef';
export const API_KEY_SECRET = 'api-keys-e2e-server-key-0123456789abcdef';
const CLUSTER_TOKEN = 'api-keys-e2e-cluster-token-0123456789';
const ADMIN_ID = '7d4b1f0e-1c2a-4f6b-9e3d-5a8c7b6d4e21';

type Json = Record<string, unknown>;
interface KeyJson {
  id: string;
  name: string;
  prefix: string;
  status: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  key?: string;
}
interface FieldProblem {
  field: string;
  message: string;
  code: string;
}
interface Snapshot {
  version: number;
  apiKeys?: Array<{ keyId: string; digest: string; name?: string; expiresAt?: string }>;
  apiKeySecretFingerprint?: string;
}

const digestOf = (key: string): string => createHmac('sha256', API_KEY_SECRET).update(key).digest('hex');

/** Where a suite's control plane keeps its rows, and how to read them back behind its back. */
export interface ApiKeysSuiteDatabase {
  label: string;
  setUp(): Promise<NodeJS.ProcessEnv>;
  /** The api_keys row, as the database holds it. */
  row(cp: ControlPlaneProcess, id: string): Promise<Json>;
  /** Everything the store holds, as text: every row of every table (and on SQLite the raw files). */
  storeText(cp: ControlPlaneProcess): Promise<string>;
  tearDown(): Promise<void>;
}

export const SQLITE: ApiKeysSuiteDatabase = {
  label: 'SQLite',
  setUp: async () => ({}),
  row: async (cp, id) => {
    const db = new Database(path.join(cp.dataDir, 'gateway.sqlite'), { readonly: true });
    try {
      return db.prepare(`SELECT * FROM api_keys WHERE id = ?`).get(id) as Json;
    } finally {
      db.close();
    }
  },
  storeText: async (cp) => {
    const file = path.join(cp.dataDir, 'gateway.sqlite');
    const db = new Database(file, { readonly: true });
    let rows = '';
    try {
      const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>;
      for (const { name } of tables) rows += JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).all());
    } finally {
      db.close();
    }
    // The bytes on disk too (WAL included): a key must not linger in a freed page either.
    const raw = [file, `${file}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f).toString('latin1'));
    return rows + raw.join('');
  },
  tearDown: async () => undefined,
};

export function postgres(): ApiKeysSuiteDatabase {
  let database: TestDatabase | undefined;
  const query = async <T>(sql: string, params: unknown[] = []): Promise<T[]> => {
    const client = new Client({ connectionString: database!.url });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  };
  return {
    label: 'PostgreSQL',
    setUp: async () => {
      // Fails (never skips) when PostgreSQL is unreachable.
      database = await createTestDatabase('api_keys_e2e');
      return { DATABASE_URL: database.url };
    },
    row: async (_cp, id) => (await query<Json>(`SELECT * FROM api_keys WHERE id = $1`, [id]))[0] as Json,
    storeText: async () => {
      const tables = await query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`);
      let text = '';
      for (const { table_name: name } of tables) text += JSON.stringify(await query(`SELECT row_to_json(t)::text AS row FROM "${name}" t`));
      return text;
    },
    tearDown: async () => database?.drop(),
  };
}

export function apiKeysApiSuite(db: ApiKeysSuiteDatabase): void {
  describe(`API keys management API (${db.label})`, () => {
    let cp: ControlPlaneProcess;
    let call: Call;
    const admin = managementToken(JWT_SECRET, 'admin', { sub: ADMIN_ID, email: 'keys-admin@example.com' });
    const user = managementToken(JWT_SECRET, 'user');

    before(async () => {
      const env = await db.setUp();
      cp = await startControlPlaneProcess({ env: { ...env, JWT_SECRET, API_KEY_SECRET, CLUSTER_TOKEN } });
      call = caller(cp);
    });
    after(async () => {
      await cp?.stop();
      await db.tearDown();
    });

    const asAdmin = (method: string, urlPath: string, body?: unknown): Promise<ClientResponse> => call(method, urlPath, { token: admin, ...(body === undefined ? {} : { body }) });
    const data = <T>(res: ClientResponse): T => res.json<{ data: T }>().data;
    const fields = (res: ClientResponse): FieldProblem[] => res.json<{ details: { fields: FieldProblem[] } }>().details.fields;
    const create = async (body: Json): Promise<KeyJson & { key: string }> => {
      const res = await asAdmin('POST', '/api/api-keys', body);
      assert.equal(res.status, 201, res.text);
      return data(res);
    };
    const snapshot = async (): Promise<Snapshot> => {
      const res = await request(`${cp.url}/internal/cluster/snapshot`, { headers: { authorization: `Bearer ${CLUSTER_TOKEN}` } });
      assert.equal(res.status, 200, res.text);
      return res.json<Snapshot>();
    };

    test('every api-keys endpoint: 401 without a token, 403 for a non-admin', async () => {
      const endpoints: Array<[string, string, unknown?]> = [
        ['POST', '/api/api-keys', { name: 'x' }],
        ['GET', '/api/api-keys'],
        ['GET', '/api/api-keys/some-id'],
        ['DELETE', '/api/api-keys/some-id'],
      ];
      for (const [method, urlPath, body] of endpoints) {
        const anonymous = await call(method, urlPath, body === undefined ? {} : { body });
        assert.equal(anonymous.status, 401, `${method} ${urlPath}`);
        assert.deepEqual({ code: anonymous.json()['code'], error: anonymous.json()['error'] }, { code: 'UNAUTHORIZED', error: 'Unauthorized' });
        const forbidden = await call(method, urlPath, { token: user, ...(body === undefined ? {} : { body }) });
        assert.equal(forbidden.status, 403, `${method} ${urlPath}`);
        assert.deepEqual({ code: forbidden.json()['code'], error: forbidden.json()['error'] }, { code: 'FORBIDDEN', error: 'Forbidden' });
      }
      assert.equal(data<KeyJson[]>(await asAdmin('GET', '/api/api-keys')).length, 0, 'no refused call created a key');
    });

    test('create: 201 with the key once; list and get never show the key or its digest; the store holds only HMAC-SHA256(API_KEY_SECRET, key)', async () => {
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const created = await create({ name: 'billing-service', expiresAt });
      assert.match(created.key, /^gw_[A-Za-z0-9_-]{43}$/);
      assert.equal(created.prefix, created.key.slice(0, 9));
      assert.deepEqual(
        { ...created, id: 'ID', key: 'KEY', prefix: 'PREFIX', createdAt: 'AT' },
        { id: 'ID', key: 'KEY', prefix: 'PREFIX', createdAt: 'AT', name: 'billing-service', status: 'active', createdBy: ADMIN_ID, expiresAt, revokedAt: null },
      );
      assert.equal(new Date(created.createdAt).toISOString(), created.createdAt);

      const digest = digestOf(created.key);
      const { key, ...shown } = created;
      const got = await asAdmin('GET', `/api/api-keys/${created.id}`);
      assert.equal(got.status, 200);
      assert.deepEqual(data(got), shown);
      const list = await asAdmin('GET', '/api/api-keys');
      assert.deepEqual(data<KeyJson[]>(list).find((k) => k.id === created.id), shown);
      for (const res of [got, list]) {
        assert.ok(!res.text.includes(key), 'the key is shown only at creation');
        assert.ok(!res.text.includes(digest), 'the digest is never shown');
      }

      const row = await db.row(cp, created.id);
      assert.equal(row['digest'], digest, 'stored as HMAC-SHA256(API_KEY_SECRET, key) in hex');
      assert.equal(row['prefix'], created.prefix);
      assert.equal(row['created_by'], ADMIN_ID);
      assert.ok(!JSON.stringify(row).includes(key));
      const store = await db.storeText(cp);
      assert.ok(store.includes(digest), 'the search below reads what the store holds');
      assert.ok(!store.includes(key), 'the key appears nowhere in the store (audit log included)');
      assert.ok(!store.includes(created.key.slice(3)), 'not even without its gw_ prefix');
    });

    test('validation: every failing field named (name missing, blank, too long, control characters; expiresAt not ISO 8601, no zone, past; unknown fields)', async () => {
      const cases: Array<[unknown, string[]]> = [
        [{}, ['name']],
        [{ name: '' }, ['name']],
        [{ name: '   ' }, ['name']],
        [{ name: 'x'.repeat(101) }, ['name']],
        [{ name: 'line\nbreak' }, ['name']],
        [{ name: 42 }, ['name']],
        [{ name: 'ok', expiresAt: 'tomorrow' }, ['expiresAt']],
        [{ name: 'ok', expiresAt: '2031-02-30T00:00:00Z' }, ['expiresAt']],
        [{ name: 'ok', expiresAt: '2031-01-01T00:00:00' }, ['expiresAt']],
        [{ name: 'ok', expiresAt: 1_900_000_000_000 }, ['expiresAt']],
        [{ name: 'ok', expiresAt: '2020-01-01T00:00:00Z' }, ['expiresAt']],
        [{ name: 'ok', key: 'gw_my-own-key' }, ['key']],
        [{ name: 'x'.repeat(101), expiresAt: 'soon', digest: 'a' }, ['digest', 'expiresAt', 'name']],
      ];
      for (const [body, expected] of cases) {
        const res = await asAdmin('POST', '/api/api-keys', body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.json()['code'], 'VALIDATION_ERROR');
        assert.deepEqual(fields(res).map((f) => f.field).sort(), expected, JSON.stringify(body));
        assert.equal(res.json()['error'], fields(res)[0]?.message);
      }
      const past = await asAdmin('POST', '/api/api-keys', { name: 'ok', expiresAt: '2020-01-01T00:00:00Z' });
      assert.equal(fields(past)[0]?.message, 'expiresAt must be in the future');
      assert.equal(fields(await asAdmin('POST', '/api/api-keys', { name: 'x'.repeat(101) }))[0]?.message, 'name must be at most 100 characters');
      for (const body of ['[]', '"text"', '{"name": ']) assert.equal((await asAdmin('POST', '/api/api-keys', body)).status, 400, body);
      assert.equal(data<KeyJson[]>(await asAdmin('GET', '/api/api-keys?status=active&limit=100')).filter((k) => k.name === 'ok').length, 0, 'nothing refused was created');
      // Offsets are accepted; the 100-character name is the longest allowed.
      assert.equal((await create({ name: 'n'.repeat(100), expiresAt: '2099-12-31T23:59:59+02:00' })).expiresAt, '2099-12-31T21:59:59.000Z');
    });

    test('unknown id: 404 API_KEY_NOT_FOUND on GET and DELETE; revoking twice is 204 both times, one revision, revokedAt of the first', async () => {
      for (const method of ['GET', 'DELETE']) {
        const res = await asAdmin(method, '/api/api-keys/no-such-key');
        assert.equal(res.status, 404, method);
        assert.deepEqual({ code: res.json()['code'], error: res.json()['error'] }, { code: 'API_KEY_NOT_FOUND', error: 'API key not found' });
      }
      const created = await create({ name: 'twice' });
      const before = (await snapshot()).version;
      const first = await asAdmin('DELETE', `/api/api-keys/${created.id}`);
      assert.equal(first.status, 204);
      assert.equal(first.text, '');
      const revoked = data<KeyJson>(await asAdmin('GET', `/api/api-keys/${created.id}`));
      assert.equal(revoked.status, 'revoked');
      assert.ok(revoked.revokedAt !== null && Date.parse(revoked.revokedAt) <= Date.now());
      assert.equal((await asAdmin('DELETE', `/api/api-keys/${created.id}`)).status, 204);
      assert.deepEqual(data(await asAdmin('GET', `/api/api-keys/${created.id}`)), revoked);
      assert.equal((await snapshot()).version, before + 1, 'the second revocation changed nothing');
    });

    test('list: creation order, limit/offset pagination, status filter; bad parameters named', async () => {
      const names = ['page-a', 'page-b', 'page-c'];
      const made: KeyJson[] = [];
      for (const name of names) made.push(await create({ name }));
      const soon = await create({ name: 'expiring', expiresAt: new Date(Date.now() + 1200).toISOString() });
      await asAdmin('DELETE', `/api/api-keys/${made[1]!.id}`);
      const all = await asAdmin('GET', '/api/api-keys?limit=100');
      const ids = data<KeyJson[]>(all).map((k) => k.id);
      assert.deepEqual(ids.slice(-4), [...made.map((k) => k.id), soon.id], 'creation order');
      const total = all.json<{ pagination: { total: number } }>().pagination.total;
      const page = await asAdmin('GET', `/api/api-keys?limit=2&offset=${total - 3}`);
      assert.deepEqual(data<KeyJson[]>(page).map((k) => k.id), [made[1]!.id, made[2]!.id]);
      assert.deepEqual(page.json()['pagination'], { total, limit: 2, offset: total - 3, hasMore: true });

      await new Promise((resolve) => setTimeout(resolve, 1300));
      const status = async (filter: string): Promise<string[]> => data<KeyJson[]>(await asAdmin('GET', `/api/api-keys?status=${filter}&limit=100`)).map((k) => `${k.name}:${k.status}`);
      const active = await status('active');
      assert.ok(active.includes('page-a:active') && active.includes('page-c:active'));
      assert.ok(!active.some((s) => s.startsWith('page-b') || s.startsWith('expiring')));
      assert.ok((await status('revoked')).includes('page-b:revoked'));
      assert.deepEqual(await status('expired'), ['expiring:expired']);

      for (const [query, field] of [['status=gone', 'status'], ['limit=0', 'limit'], ['limit=101', 'limit'], ['offset=-1', 'offset'], ['revoked=true', 'revoked']]) {
        const res = await asAdmin('GET', `/api/api-keys?${query}`);
        assert.equal(res.status, 400, query);
        assert.deepEqual(fields(res).map((f) => f.field), [field], query);
      }
    });

    test('the route snapshot carries the active keys as digests with id, name and expiry; create and revoke each bump the revision once', async () => {
      const before = await snapshot();
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const created = await create({ name: 'snapshot-key', expiresAt });
      const after = await snapshot();
      assert.equal(after.version, before.version + 1);
      assert.deepEqual(after.apiKeys?.find((k) => k.keyId === created.id), { keyId: created.id, digest: digestOf(created.key), name: 'snapshot-key', expiresAt });
      assert.match(String(after.apiKeySecretFingerprint), /^[0-9a-f]{16}$/);
      const text = JSON.stringify(after);
      assert.ok(!text.includes(created.key), 'a snapshot never holds a key');
      const activeIds = data<KeyJson[]>(await asAdmin('GET', '/api/api-keys?status=active&limit=100')).map((k) => k.id).sort();
      assert.deepEqual(after.apiKeys?.map((k) => k.keyId).sort(), activeIds, 'exactly the active keys (no revoked, no expired)');
      await asAdmin('DELETE', `/api/api-keys/${created.id}`);
      const revoked = await snapshot();
      assert.equal(revoked.version, after.version + 1);
      assert.ok(!revoked.apiKeys?.some((k) => k.keyId === created.id));
    });

    test('the audit log records creations and revocations (who, which key) but never the key', async () => {
      const created = await create({ name: 'audited' });
      await asAdmin('DELETE', `/api/api-keys/${created.id}`);
      const res = await asAdmin('GET', '/api/audit-log?limit=10');
      const entries = data<Array<{ actor: string; action: string; target: string; details: Json | null }>>(res).filter((e) => e.target === created.id);
      assert.deepEqual(entries.map((e) => [e.action, e.actor]).sort(), [
        ['api-key.create', 'keys-admin@example.com'],
        ['api-key.revoke', 'keys-admin@example.com'],
      ]);
      assert.ok(!res.text.includes(created.key));
      const logs = await asAdmin('GET', '/api/logs?limit=1000');
      assert.ok(logs.text.includes(created.id), 'the creation is logged by id');
      assert.ok(!logs.text.includes(created.key) && !cp.output.join('\n').includes(created.key), 'never the key');
    });
  });
}
