import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClientResponse } from '@gateway/testing';
import { ADMIN, ADMIN_ENV, caller, login, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

/*
 * The admin UI's browser session (docs/admin-ui.md): POST /api/auth/login with session "cookie"
 * sets an HttpOnly SameSite=Strict cookie holding the management token and a readable CSRF
 * cookie; the API accepts the cookie beside Bearer, refuses a state-changing call that does not
 * echo the CSRF token, and logout revokes the token and expires both cookies.
 */
interface CookieSession {
  cookieHeader: string;
  csrf: string;
  setCookies: string[];
}

function setCookiesOf(res: ClientResponse): string[] {
  const value = res.headers['set-cookie'];
  return value === undefined ? [] : value;
}

function cookieValue(setCookies: string[], name: string): string {
  const line = setCookies.find((c) => c.startsWith(`${name}=`));
  assert.ok(line !== undefined, `no ${name} cookie in ${JSON.stringify(setCookies)}`);
  return line.slice(name.length + 1).split(';')[0] ?? '';
}

async function cookieLogin(call: Call): Promise<CookieSession> {
  const res = await call('POST', '/api/auth/login', { body: { ...ADMIN, session: 'cookie' } });
  assert.equal(res.status, 200, res.text);
  const setCookies = setCookiesOf(res);
  const session = cookieValue(setCookies, 'gateway_session');
  const csrf = cookieValue(setCookies, 'gateway_csrf');
  return { cookieHeader: `gateway_session=${session}; gateway_csrf=${csrf}`, csrf, setCookies };
}

describe('cookie session for the admin UI', () => {
  let cp: ControlPlaneProcess;
  let call: Call;
  let upstream: string;

  before(async () => {
    cp = await startControlPlaneProcess({ env: ADMIN_ENV });
    call = caller(cp);
    upstream = 'http://127.0.0.1:9';
  });
  after(async () => {
    await cp?.stop();
  });

  const routeBody = (id: string) => ({ id, path: `/${id}/*`, upstream });

  test('login with session "cookie": HttpOnly SameSite=Strict session cookie, readable CSRF cookie, no token in the body', async () => {
    const res = await call('POST', '/api/auth/login', { body: { ...ADMIN, session: 'cookie' } });
    assert.equal(res.status, 200, res.text);
    const body = res.json<{ data: Record<string, unknown> }>().data;
    assert.deepEqual(Object.keys(body).sort(), ['expiresIn', 'session']);
    assert.equal(body['session'], 'cookie');
    assert.doesNotMatch(res.text, /eyJ/, 'no JWT in the body');
    const [sessionCookie, csrfCookie] = ['gateway_session', 'gateway_csrf'].map((name) => setCookiesOf(res).find((c) => c.startsWith(`${name}=`)) ?? '');
    const attributes = (line: string) => line.split(';').slice(1).map((part) => part.trim());
    assert.deepEqual(attributes(sessionCookie ?? '').sort(), ['HttpOnly', `Max-Age=${String(body['expiresIn'])}`, 'Path=/', 'SameSite=Strict']);
    assert.deepEqual(attributes(csrfCookie ?? '').sort(), [`Max-Age=${String(body['expiresIn'])}`, 'Path=/', 'SameSite=Strict']);
  });

  test('without session, login answers the token as before and sets no cookie', async () => {
    const res = await call('POST', '/api/auth/login', { body: ADMIN });
    assert.equal(res.status, 200);
    assert.equal(typeof res.json<{ data: { token: string } }>().data.token, 'string');
    assert.deepEqual(setCookiesOf(res), []);
  });

  test('an unknown session kind is a validation error on the field session', async () => {
    const res = await call('POST', '/api/auth/login', { body: { ...ADMIN, session: 'jar' } });
    assert.equal(res.status, 400);
    const body = res.json<{ code: string; details: { fields: Array<{ field: string }> } }>();
    assert.equal(body.code, 'VALIDATION_ERROR');
    assert.deepEqual(body.details.fields.map((f) => f.field), ['session']);
  });

  test('the cookie authenticates reads: session check and the routes list', async () => {
    const session = await cookieLogin(call);
    const check = await call('GET', '/api/auth/session', { headers: { cookie: session.cookieHeader } });
    assert.equal(check.status, 200, check.text);
    assert.equal(check.json<{ data: { user: { email: string; role: string } } }>().data.user.role, 'admin');
    assert.equal((await call('GET', '/api/routes', { headers: { cookie: session.cookieHeader } })).status, 200);
    assert.equal((await call('GET', '/api/routes', { headers: { cookie: 'gateway_session=not-a-token' } })).status, 401);
  });

  test('a state-changing call with the cookie needs the CSRF token: missing, wrong or another session\'s is 403 and changes nothing', async () => {
    const session = await cookieLogin(call);
    const other = await cookieLogin(call);
    const attempts: Array<[string, Record<string, string>]> = [
      ['missing', { cookie: session.cookieHeader }],
      ['wrong', { cookie: session.cookieHeader, 'x-csrf-token': 'x'.repeat(session.csrf.length) }],
      ['another session\'s', { cookie: session.cookieHeader, 'x-csrf-token': other.csrf }],
    ];
    for (const [what, headers] of attempts) {
      const res = await call('POST', '/api/routes', { headers, body: routeBody('csrf-refused') });
      assert.equal(res.status, 403, `${what}: ${res.text}`);
      assert.equal(res.json<{ code: string }>().code, 'CSRF_TOKEN_INVALID', what);
    }
    const token = await login(call, ADMIN);
    assert.equal((await call('GET', '/api/routes/csrf-refused', { token })).status, 404, 'nothing was created');

    const accepted = await call('POST', '/api/routes', { headers: { cookie: session.cookieHeader, 'x-csrf-token': session.csrf }, body: routeBody('csrf-accepted') });
    assert.equal(accepted.status, 201, accepted.text);
  });

  test('a Bearer client needs no CSRF token, even when it also sends cookies', async () => {
    const token = await login(call, ADMIN);
    const res = await call('POST', '/api/routes', { token, headers: { cookie: 'gateway_session=whatever' }, body: routeBody('bearer-no-csrf') });
    assert.equal(res.status, 201, res.text);
  });

  test('logout with the cookie (and its CSRF token) revokes the token and expires both cookies', async () => {
    const session = await cookieLogin(call);
    const refused = await call('POST', '/api/auth/logout', { headers: { cookie: session.cookieHeader } });
    assert.equal(refused.status, 403, 'logout is state-changing too');
    const res = await call('POST', '/api/auth/logout', { headers: { cookie: session.cookieHeader, 'x-csrf-token': session.csrf } });
    assert.equal(res.status, 200, res.text);
    for (const name of ['gateway_session', 'gateway_csrf']) {
      const line = setCookiesOf(res).find((c) => c.startsWith(`${name}=;`));
      assert.ok(line?.includes('Max-Age=0'), `${name} expired: ${JSON.stringify(setCookiesOf(res))}`);
    }
    assert.equal((await call('GET', '/api/auth/session', { headers: { cookie: session.cookieHeader } })).status, 401, 'the old cookie no longer works');
  });
});

describe('cookie session behind a TLS-terminating proxy (TRUSTED_PROXIES)', () => {
  let cp: ControlPlaneProcess;
  let call: Call;
  before(async () => {
    // The test's own socket (127.0.0.1) is the trusted proxy.
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, TRUSTED_PROXIES: '127.0.0.1, ::ffff:127.0.0.1' } });
    call = caller(cp);
  });
  after(async () => {
    await cp?.stop();
  });

  const secureFlags = (res: ClientResponse): boolean[] => setCookiesOf(res).map((line) => line.split(';').some((part) => part.trim() === 'Secure'));

  test('X-Forwarded-Proto https from the trusted proxy: both cookies are Secure, on login and on logout', async () => {
    const res = await call('POST', '/api/auth/login', { body: { ...ADMIN, session: 'cookie' }, headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(secureFlags(res), [true, true]);
    const setCookies = setCookiesOf(res);
    const cookie = `gateway_session=${cookieValue(setCookies, 'gateway_session')}`;
    const out = await call('POST', '/api/auth/logout', { headers: { cookie, 'x-csrf-token': cookieValue(setCookies, 'gateway_csrf'), 'x-forwarded-proto': 'https' } });
    assert.equal(out.status, 200, out.text);
    assert.deepEqual(secureFlags(out), [true, true]);
  });

  test('plain HTTP through the proxy (or a last hop of http) is not Secure', async () => {
    for (const proto of [undefined, 'http', 'https, http']) {
      const res = await call('POST', '/api/auth/login', { body: { ...ADMIN, session: 'cookie' }, headers: proto === undefined ? {} : { 'x-forwarded-proto': proto } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(secureFlags(res), [false, false], String(proto));
    }
  });
});

test('X-Forwarded-Proto from a peer that is not a trusted proxy is ignored', async () => {
  const cp = await startControlPlaneProcess({ env: ADMIN_ENV });
  try {
    const res = await caller(cp)('POST', '/api/auth/login', { body: { ...ADMIN, session: 'cookie' }, headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(setCookiesOf(res).some((line) => /;\s*Secure(;|$)/.test(line)), false);
  } finally {
    await cp.stop();
  }
});
