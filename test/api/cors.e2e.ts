import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_ENV, caller, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

const preflight = (call: Call, origin: string, path = '/api/users') =>
  call('OPTIONS', path, { headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } });

describe('CORS (spec 8): default local development origins', () => {
  let cp: ControlPlaneProcess;
  let call: Call;
  before(async () => {
    cp = await startControlPlaneProcess({ env: ADMIN_ENV });
    call = caller(cp);
  });
  after(async () => {
    await cp?.stop();
  });

  test('an allowed origin gets Access-Control-Allow-Origin on answers, errors included, and the exposed headers', async () => {
    for (const origin of ['http://localhost:3000', 'http://localhost:5173']) {
      const res = await call('GET', '/api/auth/session', { headers: { origin } });
      assert.equal(res.status, 401);
      assert.equal(res.headers['access-control-allow-origin'], origin);
      assert.match(String(res.headers['vary']), /Origin/i);
      assert.match(String(res.headers['access-control-expose-headers']), /X-Correlation-ID/);
      assert.match(String(res.headers['access-control-expose-headers']), /Retry-After/);
    }
  });

  test('other origins are refused: no Access-Control-Allow-Origin', async () => {
    for (const origin of ['https://evil.example', 'http://localhost:3001', 'null']) {
      const res = await call('GET', '/api/auth/session', { headers: { origin } });
      assert.equal(res.headers['access-control-allow-origin'], undefined, origin);
    }
  });

  test('preflight: 204 with the allowed methods and headers for an allowed origin, nothing for a refused one', async () => {
    const allowed = await preflight(call, 'http://localhost:5173');
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers['access-control-allow-origin'], 'http://localhost:5173');
    assert.match(String(allowed.headers['access-control-allow-methods']), /POST/);
    assert.match(String(allowed.headers['access-control-allow-methods']), /DELETE/);
    assert.match(String(allowed.headers['access-control-allow-headers']).toLowerCase(), /authorization/);
    assert.match(String(allowed.headers['access-control-allow-headers']).toLowerCase(), /content-type/);
    // A preflight carries no credentials: it must not be answered 401.
    const refused = await preflight(call, 'https://evil.example');
    assert.notEqual(refused.status, 401);
    assert.equal(refused.headers['access-control-allow-origin'], undefined);
    assert.equal(refused.headers['access-control-allow-methods'], undefined);
  });
});

describe('CORS: ALLOWED_ORIGINS replaces the default', () => {
  let cp: ControlPlaneProcess;
  let call: Call;
  before(async () => {
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, ALLOWED_ORIGINS: 'https://admin.example.com, https://ops.example.com:8443' } });
    call = caller(cp);
  });
  after(async () => {
    await cp?.stop();
  });

  test('listed origins are allowed, the development defaults no longer are', async () => {
    for (const origin of ['https://admin.example.com', 'https://ops.example.com:8443']) {
      assert.equal((await preflight(call, origin)).headers['access-control-allow-origin'], origin);
      assert.equal((await call('POST', '/api/auth/login', { headers: { origin }, body: {} })).headers['access-control-allow-origin'], origin);
    }
    for (const origin of ['http://localhost:5173', 'https://admin.example.com.evil.example', 'http://admin.example.com']) {
      assert.equal((await preflight(call, origin)).headers['access-control-allow-origin'], undefined, origin);
    }
  });

  test('an invalid ALLOWED_ORIGINS entry stops the start and names the variable', async () => {
    await assert.rejects(startControlPlaneProcess({ env: { ...ADMIN_ENV, ALLOWED_ORIGINS: 'admin.example.com' } }), /ALLOWED_ORIGINS/);
  });
});
