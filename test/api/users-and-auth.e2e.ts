import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, login, startAdminControlPlane, type AdminControlPlane, type Call } from './auth-fixtures';

interface UserView {
  id: string;
  email: string;
  role: string;
  createdAt: string;
  disabled: boolean;
}

// The same suite on the embedded SQLite and on PostgreSQL (a database of its own, dropped after;
// an unreachable PostgreSQL fails the suite, it is never skipped).
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`users and login (${dialect})`, () => {
    let running: AdminControlPlane | undefined;
    let call: Call;
    let adminToken: string;

    before(async () => {
      running = await startAdminControlPlane(dialect, 'cp_users');
      ({ call, adminToken } = running);
    });
    after(() => running?.stop());

    const createUser = (body: unknown, token = adminToken) => call('POST', '/api/users', { token, body });

    test('POST /api/users: 201 with the user in the envelope, never the password or its hash', async () => {
      const res = await createUser({ email: 'Ada@Example.com', password: 'analytical engine 1843', role: 'user' });
      assert.equal(res.status, 201, res.text);
      const json = res.json<{ success: boolean; data: UserView }>();
      assert.equal(json.success, true);
      assert.deepEqual(Object.keys(json.data).sort(), ['createdAt', 'disabled', 'email', 'id', 'role']);
      assert.equal(json.data.disabled, false);
      assert.equal(json.data.email, 'ada@example.com');
      assert.equal(json.data.role, 'user');
      assert.ok(!Number.isNaN(Date.parse(json.data.createdAt)));
      assert.ok(!res.text.includes('analytical engine'));
      assert.ok(!res.text.includes('scrypt'));
      // The new user can log in (the email is case-insensitive).
      await login(call, { email: 'ADA@example.com', password: 'analytical engine 1843' });
    });

    test('a taken email is 409 EMAIL_EXISTS, whatever its case', async () => {
      const res = await createUser({ email: 'ADA@example.COM', password: 'another password 99', role: 'admin' });
      assert.equal(res.status, 409);
      assert.deepEqual(res.json(), { success: false, error: 'Email already exists', code: 'EMAIL_EXISTS' });
    });

    test('the password policy answers 400 with a message naming the rule', async () => {
      const cases: Array<[string, string]> = [
        ['short-pw', 'password must be at least 12 characters'],
        ['grace@example.com-2024', 'password must not contain the email address'],
        ['aaaaaaaaaaaaaaaa', 'password must contain at least 4 different characters'],
      ];
      for (const [password, message] of cases) {
        const res = await createUser({ email: 'grace@example.com', password, role: 'user' });
        assert.equal(res.status, 400, password);
        const json = res.json<{ error: string; code: string; details: { fields: Array<{ field: string; message: string }> } }>();
        assert.equal(json.code, 'VALIDATION_ERROR');
        assert.equal(json.error, message);
        assert.deepEqual(json.details.fields.map((f) => f.field), ['password']);
      }
    });

    test('bad bodies: each failing field is named; unknown fields are refused', async () => {
      const cases: Array<[unknown, string]> = [
        [{ password: 'long enough password', role: 'user' }, 'email'],
        [{ email: 'not-an-email', password: 'long enough password', role: 'user' }, 'email'],
        [{ email: 'x@example.com', role: 'user' }, 'password'],
        [{ email: 'x@example.com', password: 'long enough password', role: 'root' }, 'role'],
        [{ email: 'x@example.com', password: 'long enough password', role: 'user', isAdmin: true }, 'isAdmin'],
      ];
      for (const [body, field] of cases) {
        const res = await createUser(body);
        assert.equal(res.status, 400, JSON.stringify(body));
        const json = res.json<{ code: string; details: { fields: Array<{ field: string }> } }>();
        assert.equal(json.code, 'VALIDATION_ERROR');
        assert.ok(json.details.fields.some((f) => f.field === field), `${field}: ${res.text}`);
      }
      assert.match((await createUser({ email: 'x@example.com', password: 'long enough password', role: 'root' })).json<{ error: string }>().error, /role must be one of: admin, user/);
    });

    test('GET /api/users: the list envelope with pagination, creation order, no hashes', async () => {
      for (const n of [1, 2, 3]) assert.equal((await createUser({ email: `page${n}@example.com`, password: `page user password ${n}`, role: 'user' })).status, 201);
      const all = await call('GET', '/api/users', { token: adminToken });
      assert.equal(all.status, 200);
      const json = all.json<{ success: boolean; data: UserView[]; pagination: Record<string, unknown> }>();
      assert.equal(json.success, true);
      assert.deepEqual(json.pagination, { total: 5, limit: 10, offset: 0, hasMore: false });
      assert.deepEqual(json.data.map((u) => u.email), ['admin@example.com', 'ada@example.com', 'page1@example.com', 'page2@example.com', 'page3@example.com']);
      assert.ok(!all.text.includes('$scrypt$'));
      assert.ok(!/password/i.test(all.text));

      const page = await call('GET', '/api/users?limit=2&offset=2', { token: adminToken });
      const paged = page.json<{ data: UserView[]; pagination: Record<string, unknown> }>();
      assert.deepEqual(paged.data.map((u) => u.email), ['page1@example.com', 'page2@example.com']);
      assert.deepEqual(paged.pagination, { total: 5, limit: 2, offset: 2, hasMore: true });

      for (const query of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc', 'sort=email']) {
        const bad = await call('GET', `/api/users?${query}`, { token: adminToken });
        assert.equal(bad.status, 400, query);
        assert.equal(bad.json()['code'], 'VALIDATION_ERROR');
      }
    });

    test('DELETE /api/users/:id: 204 without a body; the user\'s tokens stop working at once; unknown id 404', async () => {
      const created = (await createUser({ email: 'temp@example.com', password: 'ephemeral account 1', role: 'user' })).json<{ data: UserView }>().data;
      const token = await login(call, { email: 'temp@example.com', password: 'ephemeral account 1' });
      assert.equal((await call('GET', '/api/auth/session', { token })).status, 200);

      const res = await call('DELETE', `/api/users/${created.id}`, { token: adminToken });
      assert.equal(res.status, 204);
      assert.equal(res.body.length, 0);
      assert.equal((await call('GET', '/api/auth/session', { token })).status, 401);
      assert.equal((await call('POST', '/api/auth/login', { body: { email: 'temp@example.com', password: 'ephemeral account 1' } })).status, 401);

      const again = await call('DELETE', `/api/users/${created.id}`, { token: adminToken });
      assert.equal(again.status, 404);
      assert.deepEqual(again.json(), { success: false, error: 'User not found', code: 'USER_NOT_FOUND' });
    });

    test('PATCH /api/users/:id {disabled}: tokens refused at once, no password login; enabling does not revive old tokens', async () => {
      const created = (await createUser({ email: 'paused@example.com', password: 'quiet horse battery 1', role: 'user' })).json<{ data: UserView }>().data;
      const credentials = { email: 'paused@example.com', password: 'quiet horse battery 1' };
      const before = await login(call, credentials);
      assert.equal((await call('GET', '/api/auth/session', { token: before })).status, 200);

      const res = await call('PATCH', `/api/users/${created.id}`, { token: adminToken, body: { disabled: true } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json<{ success: boolean; data: UserView }>(), { success: true, data: { ...created, disabled: true } });
      assert.equal((await call('GET', '/api/auth/session', { token: before })).status, 401);
      const refused = await call('POST', '/api/auth/login', { body: credentials });
      assert.equal(refused.status, 401);
      assert.deepEqual(refused.json(), { success: false, error: 'Invalid email or password', code: 'INVALID_CREDENTIALS' });
      const listed = (await call('GET', '/api/users?limit=100', { token: adminToken })).json<{ data: UserView[] }>().data;
      assert.equal(listed.find((u) => u.id === created.id)?.disabled, true);

      const enabled = await call('PATCH', `/api/users/${created.id}`, { token: adminToken, body: { disabled: false } });
      assert.equal(enabled.json<{ data: UserView }>().data.disabled, false);
      assert.equal((await call('GET', '/api/auth/session', { token: before })).status, 401, 'a token issued before the disable stays refused');
      const after = await login(call, credentials);
      assert.equal((await call('GET', '/api/auth/session', { token: after })).status, 200);

      const audit = (await call('GET', '/api/audit-log?limit=100', { token: adminToken })).json<{ data: Array<{ actor: string; action: string; target: string | null }> }>().data;
      for (const action of ['user.disable', 'user.enable']) {
        assert.ok(audit.some((e) => e.action === action && e.actor === ADMIN.email && e.target === 'paused@example.com'), action);
      }
    });

    test('PATCH /api/users/:id: admins only; bad bodies name the field; unknown id 404; the last enabled admin stays', async () => {
      const created = (await createUser({ email: 'patcher@example.com', password: 'patching user pw 1', role: 'user' })).json<{ data: UserView }>().data;
      const userToken = await login(call, { email: 'patcher@example.com', password: 'patching user pw 1' });
      assert.equal((await call('PATCH', `/api/users/${created.id}`, { token: userToken, body: { disabled: true } })).status, 403);
      assert.equal((await call('PATCH', `/api/users/${created.id}`, { body: { disabled: true } })).status, 401);
      for (const [body, field] of [[{}, 'disabled'], [{ disabled: 'yes' }, 'disabled'], [{ disabled: true, role: 'admin' }, 'role']] as const) {
        const bad = await call('PATCH', `/api/users/${created.id}`, { token: adminToken, body });
        assert.equal(bad.status, 400, JSON.stringify(body));
        const json = bad.json<{ code: string; details: { fields: Array<{ field: string }> } }>();
        assert.equal(json.code, 'VALIDATION_ERROR');
        assert.ok(json.details.fields.some((f) => f.field === field), bad.text);
      }
      const missing = await call('PATCH', '/api/users/no-such-user', { token: adminToken, body: { disabled: true } });
      assert.equal(missing.status, 404);
      assert.equal(missing.json()['code'], 'USER_NOT_FOUND');

      const self = (await call('GET', '/api/users?limit=100', { token: adminToken })).json<{ data: UserView[] }>().data.find((u) => u.email === ADMIN.email)!;
      const last = await call('PATCH', `/api/users/${self.id}`, { token: adminToken, body: { disabled: true } });
      assert.equal(last.status, 422);
      assert.deepEqual(last.json(), { success: false, error: 'The last admin cannot be disabled', code: 'LAST_ADMIN' });
      assert.equal((await call('GET', '/api/auth/session', { token: adminToken })).status, 200);
    });

    test('the last admin cannot be deleted (422 LAST_ADMIN); with a second admin it can', async () => {
      const users = (await call('GET', '/api/users?limit=100', { token: adminToken })).json<{ data: UserView[] }>().data;
      const self = users.find((u) => u.email === ADMIN.email)!;
      const refused = await call('DELETE', `/api/users/${self.id}`, { token: adminToken });
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.json(), { success: false, error: 'The last admin cannot be deleted', code: 'LAST_ADMIN' });

      const second = (await createUser({ email: 'second-admin@example.com', password: 'second admin password', role: 'admin' })).json<{ data: UserView }>().data;
      const secondToken = await login(call, { email: 'second-admin@example.com', password: 'second admin password' });
      assert.equal((await call('DELETE', `/api/users/${second.id}`, { token: adminToken })).status, 204);
      assert.equal((await call('GET', '/api/users', { token: secondToken })).status, 401);
      assert.equal((await call('DELETE', `/api/users/${self.id}`, { token: adminToken })).status, 422);
    });

    test('GET /api/auth/session: {valid, user:{id,email,role}, expiresAt}', async () => {
      const res = await call('GET', '/api/auth/session', { token: adminToken });
      assert.equal(res.status, 200);
      const { data } = res.json<{ data: { valid: boolean; user: Record<string, unknown>; expiresAt: string } }>();
      assert.equal(data.valid, true);
      assert.deepEqual(Object.keys(data.user).sort(), ['email', 'id', 'role']);
      assert.equal(data.user['email'], ADMIN.email);
      assert.equal(data.user['role'], 'admin');
      const remaining = Date.parse(data.expiresAt) - Date.now();
      assert.ok(remaining > 86_000_000 && remaining <= 86_400_000, String(remaining));
    });

    test('POST /api/auth/logout revokes that token only, until it expires', async () => {
      const first = await login(call, ADMIN);
      const second = await login(call, ADMIN);
      const res = await call('POST', '/api/auth/logout', { token: first });
      assert.equal(res.status, 200);
      assert.deepEqual(res.json(), { success: true, data: { loggedOut: true } });
      assert.equal((await call('GET', '/api/auth/session', { token: first })).status, 401);
      assert.equal((await call('GET', '/api/users', { token: first })).status, 401);
      assert.equal((await call('POST', '/api/auth/logout', { token: first })).status, 401);
      assert.equal((await call('GET', '/api/auth/session', { token: second })).status, 200);
      assert.equal((await call('POST', '/api/auth/logout')).status, 401);
    });

    test('login: an unknown user and a wrong password get the same answer; both are audited without the password', async () => {
      const wrong = await call('POST', '/api/auth/login', { body: { email: ADMIN.email, password: 'wrong password here' } });
      const unknown = await call('POST', '/api/auth/login', { body: { username: 'nobody@example.com', password: 'wrong password here' } });
      assert.equal(wrong.status, 401);
      assert.equal(unknown.status, 401);
      assert.deepEqual(wrong.json(), unknown.json());
      assert.deepEqual(wrong.json(), { success: false, error: 'Invalid email or password', code: 'INVALID_CREDENTIALS' });
      assert.equal(wrong.headers['content-length'], unknown.headers['content-length']);

      const audit = await call('GET', '/api/audit-log?limit=100', { token: adminToken });
      assert.equal(audit.status, 200);
      const entries = audit.json<{ data: Array<{ actor: string; action: string; target: string | null; ip: string | null; at: string }> }>().data;
      const failed = entries.filter((e) => e.action === 'auth.login.failed');
      assert.ok(failed.some((e) => e.target === 'nobody@example.com'));
      assert.ok(failed.every((e) => e.actor === 'anonymous' && e.ip !== null && !Number.isNaN(Date.parse(e.at))));
      for (const action of ['auth.login', 'auth.logout', 'user.create', 'user.delete', 'user.disable']) {
        const entry = entries.find((e) => e.action === action);
        assert.ok(entry, action);
        assert.equal(entry.actor, ADMIN.email, action);
        assert.match(entry.ip ?? '', /127\.0\.0\.1/, action);
      }
      for (const secret of ['wrong password here', ADMIN.password, 'analytical engine 1843', adminToken]) assert.ok(!audit.text.includes(secret), 'audit log holds a secret');
    });

    test('POST /api/auth/register answers 501 NOT_IMPLEMENTED in the envelope', async () => {
      const res = await call('POST', '/api/auth/register', { body: { email: 'new@example.com', password: 'long enough password' } });
      assert.equal(res.status, 501);
      const json = res.json();
      assert.equal(json['success'], false);
      assert.equal(json['code'], 'NOT_IMPLEMENTED');
      assert.equal(typeof json['error'], 'string');
    });

    // Last: either admin may win the race.
    // The loser gets 422 LAST_ADMIN, or 401 when the winner's delete (which revokes its tokens) landed first.
    test('two admins deleting each other at once: exactly one succeeds, one admin remains', async () => {
      const users = (await call('GET', '/api/users?limit=100', { token: adminToken })).json<{ data: UserView[] }>().data;
      const self = users.find((u) => u.email === ADMIN.email)!;
      const rival = (await createUser({ email: 'rival-admin@example.com', password: 'rival admin password', role: 'admin' })).json<{ data: UserView }>().data;
      const rivalToken = await login(call, { email: 'rival-admin@example.com', password: 'rival admin password' });
      const [mine, theirs] = await Promise.all([
        call('DELETE', `/api/users/${rival.id}`, { token: adminToken }),
        call('DELETE', `/api/users/${self.id}`, { token: rivalToken }),
      ]);
      const statuses = [mine.status, theirs.status].sort();
      assert.ok(statuses[0] === 204 && (statuses[1] === 422 || statuses[1] === 401), `${mine.status} ${mine.text} / ${theirs.status} ${theirs.text}`);
      const admins = (await call('GET', '/api/users?limit=100', { token: mine.status === 204 ? adminToken : rivalToken })).json<{ data: UserView[] }>().data.filter((u) => u.role === 'admin');
      assert.equal(admins.length, 1);
    });
  });
}
