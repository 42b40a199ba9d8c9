import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, ADMIN_ENV, caller, login, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

/** Who may call what: 401 "Unauthorized" anonymous, 403 "Forbidden" without the admin role (spec 5.1, 7.2). */
describe('deny by default: the 401/403 matrix on /api', () => {
  let cp: ControlPlaneProcess;
  let call: Call;
  let adminToken: string;
  let userToken: string;
  let userId: string;

  before(async () => {
    cp = await startControlPlaneProcess({ env: ADMIN_ENV });
    call = caller(cp);
    adminToken = await login(call, ADMIN);
    const created = await call('POST', '/api/users', { token: adminToken, body: { email: 'user@example.com', password: 'plain member password', role: 'user' } });
    assert.equal(created.status, 201, created.text);
    userId = created.json<{ data: { id: string } }>().data.id;
    userToken = await login(call, { email: 'user@example.com', password: 'plain member password' });
  });
  after(async () => {
    await cp?.stop();
  });

  const UNAUTHORIZED = { success: false, error: 'Unauthorized', code: 'UNAUTHORIZED' };
  const FORBIDDEN = { success: false, error: 'Forbidden', code: 'FORBIDDEN' };

  // [method, path, body, what the admin gets, what a user gets]
  const matrix = (): Array<[string, string, unknown, number, number]> => [
    ['GET', '/api/users', undefined, 200, 403],
    ['POST', '/api/users', { email: 'matrix@example.com', password: 'tabular grid 12345', role: 'user' }, 201, 403],
    ['DELETE', '/api/users/00000000-0000-0000-0000-000000000000', undefined, 404, 403],
    ['GET', '/api/logs', undefined, 200, 403],
    ['GET', '/api/audit-log', undefined, 200, 403],
    ['GET', '/api/auth/session', undefined, 200, 200],
    ['GET', '/api', undefined, 404, 404],
    ['GET', '/api/does-not-exist', undefined, 404, 404],
    ['POST', '/api/x/y/z', {}, 404, 404],
    ['DELETE', '/api/anything', undefined, 404, 404],
  ];

  test('anonymous: 401 "Unauthorized" on every guarded /api path, known or not (no path is revealed)', async () => {
    for (const [method, path, body] of [...matrix(), ['POST', '/api/auth/logout', undefined, 0, 0] as const, ['GET', '/api/routes', undefined, 0, 0] as const, ['GET', '/API/USERS', undefined, 0, 0] as const]) {
      const res = await call(method, path, { body });
      assert.equal(res.status, 401, `${method} ${path}`);
      assert.deepEqual(res.json(), UNAUTHORIZED, `${method} ${path}`);
    }
  });

  test('a garbage, foreign-issuer or "none"-algorithm token is 401 too', async () => {
    const [header, payload] = adminToken.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    for (const token of ['garbage', `${header}.${payload}.AAAA`, none]) {
      const res = await call('GET', '/api/users', { token });
      assert.equal(res.status, 401, token);
      assert.deepEqual(res.json(), UNAUTHORIZED);
    }
  });

  test('role user: 403 "Forbidden" on admin resources, served elsewhere', async () => {
    for (const [method, path, body, , expected] of matrix()) {
      const res = await call(method, path, { token: userToken, body });
      assert.equal(res.status, expected, `${method} ${path}: ${res.text}`);
      if (expected === 403) assert.deepEqual(res.json(), FORBIDDEN, `${method} ${path}`);
    }
    assert.equal((await call('DELETE', `/api/users/${userId}`, { token: userToken })).status, 403);
  });

  test('role admin: served (unknown paths are 404 in the envelope)', async () => {
    for (const [method, path, body, expected] of matrix()) {
      const res = await call(method, path, { token: adminToken, body });
      assert.equal(res.status, expected, `${method} ${path}: ${res.text}`);
      if (expected === 404) assert.ok(['NOT_FOUND', 'USER_NOT_FOUND'].includes(String(res.json()['code'])), res.text);
    }
  });

  test('public: login, register (501), the OpenAPI document; never the ops endpoints behind /api', async () => {
    assert.equal((await call('POST', '/api/auth/login', { body: { email: 'nobody@example.com', password: 'whatever password' } })).status, 401);
    assert.equal((await call('POST', '/api/auth/login', { body: { email: 'nobody@example.com', password: 'whatever password' } })).json()['code'], 'INVALID_CREDENTIALS');
    assert.equal((await call('POST', '/api/auth/register', { body: {} })).status, 501);
    // SAML is public: without authentication.sso it is 503, never 401.
    assert.equal((await call('POST', '/api/auth/saml/initiate', { body: {} })).status, 503);
    assert.equal((await call('GET', '/api/docs-json')).status, 200);
    assert.equal((await call('GET', '/health')).status, 200);
  });
});
