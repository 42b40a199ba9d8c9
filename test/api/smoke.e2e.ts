import { createHmac, randomUUID } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { request } from '@gateway/testing';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

const JWT_SECRET = 'smoke-test-secret-0123456789abcdefghijklmnop';
const ADMIN = { email: 'admin@example.com', password: 'correct horse battery staple' };

/** An HS256 token signed with the test's secret, for claims no endpoint can mint yet (role user). */
function forgeToken(claims: Record<string, unknown>, secret = JWT_SECRET): string {
  const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const body = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ iat: now, exp: now + 600, iss: 'gateway', jti: randomUUID(), ...claims })}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

describe('control plane smoke (SQLite, control-plane role)', () => {
  let cp: ControlPlaneProcess;
  let adminToken: string;

  before(async () => {
    cp = await startControlPlaneProcess({ env: { JWT_SECRET, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } });
  });
  after(async () => {
    await cp?.stop();
  });

  const call = (method: string, urlPath: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    request(`${cp.url}${urlPath}`, {
      method,
      headers: {
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    });

  test('the env admin logs in with {email,password} and {username,password}; token claims per decision 20', async () => {
    for (const body of [{ email: ADMIN.email, password: ADMIN.password }, { username: ADMIN.email, password: ADMIN.password }]) {
      const res = await call('POST', '/api/auth/login', { body });
      assert.equal(res.status, 200, res.text);
      const json = res.json<{ success: boolean; data: { token: string; expiresIn: number } }>();
      assert.equal(json.success, true);
      assert.deepEqual(Object.keys(json.data).sort(), ['expiresIn', 'token']);
      assert.equal(json.data.expiresIn, 86400);
      adminToken = json.data.token;
    }
    const [header, payload] = adminToken.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>);
    assert.equal(header!['alg'], 'HS256');
    // Decision 20's claims, plus `gen`: the user's token generation, bumped when the user is
    // disabled so tokens issued before stay refused after re-enabling (docs/auth-and-limits.md).
    assert.deepEqual(Object.keys(payload!).sort(), ['email', 'exp', 'gen', 'iat', 'iss', 'jti', 'role', 'sub']);
    assert.equal(payload!['role'], 'admin');
    assert.equal(payload!['email'], ADMIN.email);
    assert.equal(Number(payload!['exp']) - Number(payload!['iat']), 86400);
  });

  test('a wrong password and an unknown user get the same 401', async () => {
    const wrong = await call('POST', '/api/auth/login', { body: { email: ADMIN.email, password: 'not the password' } });
    const unknown = await call('POST', '/api/auth/login', { body: { email: 'nobody@example.com', password: 'not the password' } });
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, 401);
    assert.deepEqual(wrong.json(), unknown.json());
    assert.equal(wrong.json()['code'], 'INVALID_CREDENTIALS');
  });

  test('401 "Unauthorized" without a token, with a bad one, a foreign one or an expired one', async () => {
    const now = Math.floor(Date.now() / 1000);
    const tokens = [undefined, 'garbage', forgeToken({ sub: 'x', email: ADMIN.email, role: 'admin' }, 'another-secret-0123456789abcdefghijkl'), forgeToken({ sub: 'x', email: ADMIN.email, role: 'admin', iat: now - 100, exp: now - 10 })];
    for (const token of tokens) {
      const res = await call('GET', '/api/auth/session', { token });
      assert.equal(res.status, 401, String(token));
      assert.deepEqual(res.json(), { success: false, error: 'Unauthorized', code: 'UNAUTHORIZED' });
    }
  });

  test('an authenticated user without the admin role gets 403 "Forbidden"; the admin gets the list envelope', async () => {
    const userToken = forgeToken({ sub: randomUUID(), email: 'user@example.com', role: 'user' });
    const session = await call('GET', '/api/auth/session', { token: userToken });
    assert.equal(session.status, 200);
    assert.equal(session.json<{ data: { valid: boolean } }>().data.valid, true);

    const forbidden = await call('GET', '/api/audit-log', { token: userToken });
    assert.equal(forbidden.status, 403);
    assert.deepEqual(forbidden.json(), { success: false, error: 'Forbidden', code: 'FORBIDDEN' });

    const allowed = await call('GET', '/api/audit-log?limit=5', { token: adminToken });
    assert.equal(allowed.status, 200, allowed.text);
    const list = allowed.json<{ success: boolean; data: Array<{ action: string }>; pagination: Record<string, unknown> }>();
    assert.equal(list.success, true);
    assert.deepEqual(Object.keys(list.pagination).sort(), ['hasMore', 'limit', 'offset', 'total']);
    assert.ok(list.data.some((entry) => entry.action === 'auth.login'));
  });

  test('a revoked jti is refused by the guard', async () => {
    const jti = randomUUID();
    const token = forgeToken({ sub: randomUUID(), email: 'user@example.com', role: 'user', jti });
    assert.equal((await call('GET', '/api/auth/session', { token })).status, 200);
    // The real SQLite file, opened with the native better-sqlite3 build the control plane uses.
    const db = new Database(path.join(cp.dataDir, 'gateway.sqlite'));
    try {
      db.prepare(`INSERT INTO revoked_tokens (jti, expires_at) VALUES (?, ?)`).run(jti, '2999-01-01 00:00:00.000');
    } finally {
      db.close();
    }
    assert.equal((await call('GET', '/api/auth/session', { token })).status, 401);
  });

  test('unknown /api paths: 401 anonymous (deny by default), 404 in the envelope with the version and correlation headers', async () => {
    assert.equal((await call('GET', '/api/does-not-exist')).status, 401);
    const res = await call('GET', '/api/does-not-exist', { token: adminToken, headers: { 'x-correlation-id': 'client-id-42' } });
    assert.equal(res.status, 404);
    const body = res.json();
    assert.equal(body['success'], false);
    assert.equal(body['code'], 'NOT_FOUND');
    assert.equal(typeof body['error'], 'string');
    assert.equal(res.headers['x-api-version'], '1.0.0');
    assert.equal(res.headers['x-config-version'], '1.0.0');
    assert.equal(res.headers['x-correlation-id'], 'client-id-42');
  });

  test('a bad client correlation id is replaced by req-<ms>-<random>', async () => {
    const res = await call('GET', '/api/does-not-exist', { headers: { 'x-correlation-id': 'x'.repeat(129) } });
    assert.match(String(res.headers['x-correlation-id']), /^req-\d{13}-[0-9a-f]{10}$/);
  });

  test('malformed JSON is a 400 VALIDATION_ERROR, unknown fields are refused, bodies over 1 MB are 413', async () => {
    const malformed = await call('POST', '/api/auth/login', { body: '{"email": ' });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.json()['code'], 'VALIDATION_ERROR');
    assert.ok(malformed.headers['x-correlation-id']);

    const unknownField = await call('POST', '/api/auth/login', { body: { email: ADMIN.email, password: 'x', role: 'admin' } });
    assert.equal(unknownField.status, 400);
    const details = unknownField.json<{ details: { fields: Array<{ field: string }> } }>().details;
    assert.deepEqual(details.fields.map((f) => f.field), ['role']);

    const large = await call('POST', '/api/auth/login', { body: { email: ADMIN.email, password: 'x'.repeat(1_100_000) } });
    assert.equal(large.status, 413);
    assert.equal(large.json()['code'], 'PAYLOAD_TOO_LARGE');
  });

  test('ops endpoints of the control-plane role: /health, /health/live, /health/ready, /version', async () => {
    for (const p of ['/health', '/health/live', '/health/serving']) {
      const res = await call('GET', p);
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.json()).sort(), ['status', 'timestamp', 'version']);
    }
    const ready = await call('GET', '/health/ready');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.json()['checks'], { database: 'UP' });
    const version = await call('GET', '/version');
    assert.deepEqual(Object.keys(version.json()).sort(), ['apiVersion', 'configVersion', 'name', 'node', 'uptime', 'version']);
  });
});
