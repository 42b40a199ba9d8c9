import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, ADMIN_ENV, JWT_SECRET, caller, eventually, login, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import type { LogLine } from '@gateway/logging';

describe('GET /api/logs: recent structured log lines (admin)', () => {
  let cp: ControlPlaneProcess;
  let call: Call;
  let adminToken: string;
  // The console is quiet (LOG_LEVEL=warn); the buffer still keeps info lines.
  before(async () => {
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, LOG_LEVEL: 'warn' } });
    call = caller(cp);
    adminToken = await login(call, ADMIN);
  });
  after(async () => {
    await cp?.stop();
  });

  const logs = async (query = '') => {
    const res = await call('GET', `/api/logs${query}`, { token: adminToken });
    assert.equal(res.status, 200, res.text);
    return res.json<{ success: boolean; data: LogLine[]; pagination: { total: number; limit: number; offset: number; hasMore: boolean } }>();
  };

  test('lines are {time, level, plane, context, correlationId, message, fields}, oldest first, with boot, auth and request lines', async () => {
    await call('POST', '/api/auth/login', { body: { email: 'intruder@example.com', password: 'guessing password 1' }, headers: { 'x-correlation-id': 'corr-failed-login-1' } });
    await eventually(async () => (await logs()).data.some((l) => l.message.includes('login failed')), 'the failed login line');
    const json = await logs('?limit=1000');
    assert.equal(json.success, true);
    assert.ok(json.data.length > 0);
    for (const line of json.data) {
      assert.deepEqual(Object.keys(line).sort(), ['context', 'correlationId', 'fields', 'level', 'message', 'plane', 'time']);
      assert.ok(['fatal', 'error', 'warn', 'info', 'debug', 'trace'].includes(line.level));
    }
    const times = json.data.map((l) => Date.parse(l.time));
    assert.deepEqual(times, [...times].sort((a, b) => a - b));
    const failed = json.data.find((l) => l.message.includes('login failed'))!;
    assert.equal(failed.level, 'warn');
    assert.equal(failed.context, 'Auth');
    assert.equal(failed.plane, 'control');
    // Logged by the auth service, which never sees the id: the request's context carries it.
    assert.equal(failed.correlationId, 'corr-failed-login-1');
    const answered = json.data.find((l) => l.context === 'HTTP' && l.correlationId === 'corr-failed-login-1');
    assert.ok(answered !== undefined && /^POST \/api\/auth\/login 401 /.test(answered.message), 'the request line carries the correlation id');
    assert.equal(answered.fields['status'], 401);
    assert.ok(json.data.some((l) => l.level === 'info' && l.context === 'Auth' && l.message.includes(`login of ${ADMIN.email}`)));
    assert.ok(json.data.some((l) => l.context === 'HTTP' && /^POST \/api\/auth\/login 401 /.test(l.message)));
  });

  test('?level= keeps that level and more severe; ?limit= the newest N; ?since= only later lines', async () => {
    const warnings = await logs('?level=warn');
    assert.ok(warnings.data.length > 0);
    assert.ok(warnings.data.every((l) => ['fatal', 'error', 'warn'].includes(l.level)));

    const all = await logs('?limit=1000');
    const two = await logs('?limit=2');
    assert.equal(two.data.length, 2);
    assert.equal(two.pagination.limit, 2);
    assert.equal(two.pagination.hasMore, true);
    assert.ok(two.pagination.total >= all.data.length);

    const marker = all.data[all.data.length - 1]!.time;
    await call('POST', '/api/auth/login', { body: { email: 'late@example.com', password: 'guessing password 2' } });
    await eventually(async () => (await logs(`?since=${encodeURIComponent(marker)}`)).data.some((l) => l.message.includes('late@example.com')), 'a line after the marker');
    const later = await logs(`?since=${encodeURIComponent(marker)}`);
    assert.ok(later.data.every((l) => Date.parse(l.time) > Date.parse(marker)));
  });

  test('bad parameters are 400 naming the parameter; a user gets 403, anonymous 401', async () => {
    for (const [query, field] of [['?level=loud', 'level'], ['?limit=0', 'limit'], ['?limit=1001', 'limit'], ['?since=yesterday', 'since']] as const) {
      const res = await call('GET', `/api/logs${query}`, { token: adminToken });
      assert.equal(res.status, 400, query);
      assert.ok(res.json<{ details: { fields: Array<{ field: string }> } }>().details.fields.some((f) => f.field === field), query);
    }
    assert.equal((await call('GET', '/api/logs')).status, 401);
    await call('POST', '/api/users', { token: adminToken, body: { email: 'reader@example.com', password: 'viewer secret phrase 12', role: 'user' } });
    const userToken = await login(call, { email: 'reader@example.com', password: 'viewer secret phrase 12' });
    assert.equal((await call('GET', '/api/logs', { token: userToken })).status, 403);
  });

  test('secrets never appear: passwords, tokens, the JWT secret', async () => {
    const text = JSON.stringify((await logs('?limit=1000')).data);
    for (const secret of [ADMIN.password, 'guessing password 1', 'viewer secret phrase 12', JWT_SECRET, adminToken]) {
      assert.ok(!text.includes(secret), 'a secret reached the log buffer');
    }
  });
});
