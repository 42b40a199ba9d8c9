import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from '@gateway/testing';
import { ADMIN, ADMIN_ENV, caller, eventually, login, type Call } from '../api/auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../api/control-plane-process';
import { idpMetadataXml } from '../api/idp-metadata-fixture';
import { ACS_URL, encoded, initiate, postCallback, SP_ENTITY_ID, startLogin } from '../api/saml-fixtures';
import { TestIdp } from '../api/saml-test-idp';
import { FakeSessionService } from '../api/session-service-fake';

/** Polls slowly: each try spends credential-tier requests (decision 21). */
async function slowly(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 30; tries++) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Two control planes on one PostgreSQL database and one Redis (issue 14): a settings change made
 * through one applies on the other without a restart (a notice on the bus, then a reload from the
 * database).
 */
describe('settings on two control planes (PostgreSQL + Redis)', () => {
  let database: TestDatabase;
  let first: ControlPlaneProcess;
  let second: ControlPlaneProcess;
  let callFirst: Call;
  let callSecond: Call;
  let token: string;

  before(async () => {
    database = await createTestDatabase('cp_settings_pair');
    const env = {
      ...ADMIN_ENV,
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_CHANNEL_PREFIX: `settings:${process.pid}:${randomBytes(4).toString('hex')}:`,
      CLUSTER_TOKEN: 'settings-pair-cluster-token-0123',
      // The SSO test spends a few credential-tier requests (decision 21) per control plane.
      API_RATE_LIMIT_CREDENTIALS_MAX: '100',
    };
    first = await startControlPlaneProcess({ env });
    second = await startControlPlaneProcess({ env });
    callFirst = caller(first);
    callSecond = caller(second);
    token = await login(callFirst, ADMIN);
  });
  after(async () => {
    await first?.stop();
    await second?.stop();
    await database?.drop();
  });

  const preflight = (call: Call, origin: string) => call('OPTIONS', '/api/users', { headers: { origin, 'access-control-request-method': 'POST' } });
  const expiresIn = async (call: Call) => (await call('POST', '/api/auth/login', { body: ADMIN })).json<{ data: { expiresIn: number } }>().data.expiresIn;

  test('a change on one control plane applies on the other: token lifetime, CORS origins, log level', async () => {
    assert.equal(await expiresIn(callSecond), 86400);
    assert.equal((await preflight(callSecond, 'https://console.example.com')).headers['access-control-allow-origin'], undefined);

    const res = await callFirst('PUT', '/api/settings', { token, body: { general: { tokenLifetimeSeconds: 900, allowedOrigins: ['https://console.example.com'], logLevel: 'info' } } });
    assert.equal(res.status, 200, res.text);

    await eventually(async () => (await expiresIn(callSecond)) === 900, 'the token lifetime on the second control plane');
    assert.equal((await preflight(callSecond, 'https://console.example.com')).headers['access-control-allow-origin'], 'https://console.example.com');
    // LOG_LEVEL=warn on both: the second one's info request lines appear once the change reached it.
    await callSecond('GET', '/api/settings', { token });
    await eventually(async () => second.output.some((line) => line.includes('"path":"/api/settings"')), 'an info line on the second control plane');
    // Both read the same version.
    const versions = await Promise.all([callFirst, callSecond].map(async (call) => (await call('GET', '/api/settings', { token })).json<{ data: { version: number } }>().data.version));
    assert.deepEqual(versions, [1, 1]);
  });

  test('route defaults changed on one control plane: routes created through the other start from them', async () => {
    const general = (await callFirst('GET', '/api/settings', { token })).json<{ data: { settings: { general: Record<string, unknown> } } }>().data.settings.general;
    assert.equal((await callFirst('PUT', '/api/settings', { token, body: { general: { ...general, routeDefaults: { requestTimeoutMs: 12000, retryAttempts: 1 } } } })).status, 200);
    let attempt = 0;
    await eventually(async () => {
      attempt += 1;
      const created = await callSecond('POST', '/api/routes', { token, body: { id: `pair-defaults-${attempt}`, path: `/pair-defaults-${attempt}`, upstream: 'http://127.0.0.1:9' } });
      assert.equal(created.status, 201, created.text);
      const route = created.json<{ data: { timeout: { request: number }; retry: { attempts: number } } }>().data;
      return route.timeout.request === 12000 && route.retry.attempts === 1;
    }, 'the route defaults on the second control plane');
    assert.equal((await callFirst('PUT', '/api/settings', { token, body: { general } })).status, 200);
  });

  test('a restore on the second applies on the first', async () => {
    assert.equal((await callSecond('PUT', '/api/settings', { token, body: { general: { tokenLifetimeSeconds: 1200 } } })).status, 200);
    await eventually(async () => (await expiresIn(callFirst)) === 1200, 'the second change on the first control plane');
    const restored = await callSecond('POST', '/api/settings', { token, body: { restoreVersion: 1 } });
    assert.equal(restored.status, 200, restored.text);
    await eventually(async () => (await expiresIn(callFirst)) === 900, 'the restore on the first control plane');
    assert.equal((await preflight(callFirst, 'https://console.example.com')).headers['access-control-allow-origin'], 'https://console.example.com');
  });

  test('SSO configured through one control plane: the other offers it, starts logins at that IdP and follows allowIdpInitiated', async () => {
    const idp = await TestIdp.start();
    idp.spEntityId = SP_ENTITY_ID;
    try {
      assert.equal((await initiate(second.url)).res.status, 503, 'SSO off before');
      const sso = { enabled: true, idpMetadataXml: idpMetadataXml(idp), acsUrl: ACS_URL };
      assert.equal((await callFirst('PUT', '/api/settings', { token, body: { sso } })).status, 200);
      await eventually(async () => (await initiate(second.url)).res.status === 200, 'SSO on the second control plane');
      const started = await startLogin(second.url, idp);
      assert.equal((await postCallback(first.url, started.form)).status, 200, 'a login started on one finishes on the other');

      const unsolicited = () => ({ SAMLResponse: encoded(idp.response({ id: '', acsUrl: ACS_URL }, { inResponseTo: null })), RelayState: '' });
      assert.equal((await postCallback(second.url, unsolicited())).status, 401);
      assert.equal((await callFirst('PUT', '/api/settings', { token, body: { sso: { ...sso, allowIdpInitiated: true } } })).status, 200);
      await eventually(async () => (await postCallback(second.url, unsolicited())).status === 200, 'IdP-initiated login allowed on the second control plane');
    } finally {
      await idp.stop();
    }
  });

  test('the session service configured through one control plane: the other creates, checks and ends its sessions there, with the API key', async () => {
    const idp = await TestIdp.start();
    idp.spEntityId = SP_ENTITY_ID;
    const service = new FakeSessionService();
    await service.start();
    service.apiKey = `pair-key-${randomBytes(16).toString('hex')}`;
    try {
      assert.equal((await callFirst('PUT', '/api/settings', { token, body: { sso: { enabled: true, idpMetadataXml: idpMetadataXml(idp), acsUrl: ACS_URL } } })).status, 200);
      await slowly(async () => (await initiate(second.url)).redirectUrl.startsWith(idp.ssoUrl), 'the new IdP on the second control plane');
      const sessionService = { enabled: true, provider: 'sessions', apiUrl: service.url, apiKey: service.apiKey, cacheTtlSeconds: 0 };
      assert.equal((await callFirst('PUT', '/api/settings', { token, body: { sessionService } })).status, 200);
      let sso = { token: '', sessionId: '' };
      await slowly(async () => {
        const res = await postCallback(second.url, (await startLogin(second.url, idp)).form);
        if (res.status !== 200) return false;
        sso = res.json<{ data: typeof sso }>().data;
        return service.sessions.has(sso.sessionId);
      }, 'sessions at the service from the second control plane');
      const check = await callSecond('GET', '/api/auth/session', { token: sso.token });
      assert.equal(check.status, 200, check.text);
      assert.equal((await callFirst('POST', '/api/auth/logout', { token: sso.token })).status, 200);
      assert.equal(service.sessions.get(sso.sessionId)?.revoked, true);
      assert.equal((await callSecond('GET', '/api/auth/session', { token: sso.token })).status, 401);
      assert.ok(service.authorizations.length >= 4);
      assert.ok(service.authorizations.every((a) => a === `Bearer ${service.apiKey}`), 'the key on every call of both control planes');
    } finally {
      await service.close();
      await idp.stop();
    }
  });
});
