import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { request } from '@gateway/testing';
import { ADMIN, ADMIN_ENV, caller, eventually, login, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { postCallback, SP_ENTITY_ID, ssoConfig, startLogin, type SamlResultView } from './saml-fixtures';
import { TestIdp } from './saml-test-idp';
import { FakeSessionService } from './session-service-fake';

interface SettingsView {
  version: number;
  settings: Record<string, Record<string, unknown>>;
}

/*
 * The `sessionService` settings section (issue 14): the session service configured live, its API
 * key sealed at rest, write-only and sent on every create/validate/revoke call; when enabled it
 * overrides proxy.yml's `authentication` block, when disabled proxy.yml's service is back.
 */
describe('session service in the settings (sessionService section)', () => {
  let idp: TestIdp;
  let cp: ControlPlaneProcess;
  let call: Call;
  let adminToken: string;
  /** Named in proxy.yml: must stop being called while the settings' service is enabled. */
  let fileService: FakeSessionService;
  /** Configured in the settings, requiring the API key. */
  let settingsService: FakeSessionService;
  const apiKey = `svc-key-${randomBytes(18).toString('hex')}`;

  before(async () => {
    idp = await TestIdp.start();
    idp.spEntityId = SP_ENTITY_ID;
    fileService = new FakeSessionService();
    settingsService = new FakeSessionService();
    await fileService.start();
    await settingsService.start();
    settingsService.apiKey = apiKey;
    const file = JSON.parse(ssoConfig(idp)) as { authentication: Record<string, unknown> };
    Object.assign(file.authentication, { provider: 'sessions', apiUrl: fileService.url, sessionValidation: { enabled: true, cacheTTL: 0 } });
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, LOG_LEVEL: 'debug' }, config: JSON.stringify({ version: '1.0.0', ...file }) });
    call = caller(cp);
    adminToken = await login(call, ADMIN);
  });
  after(async () => {
    await cp?.stop();
    await idp?.stop();
    await fileService?.close();
    await settingsService?.close();
  });

  const put = (sessionService: Record<string, unknown>) => call('PUT', '/api/settings', { token: adminToken, body: { sessionService } });
  const view = async (): Promise<SettingsView> => (await call('GET', '/api/settings', { token: adminToken })).json<{ data: SettingsView }>().data;
  const session = (token: string) => request(`${cp.url}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } });
  const logout = (token: string) => request(`${cp.url}/api/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  async function ssoLogin(): Promise<{ status: number; text: string; result?: SamlResultView }> {
    const started = await startLogin(cp.url, idp);
    const res = await postCallback(cp.url, started.form);
    return { status: res.status, text: res.text, ...(res.status === 200 ? { result: res.json<{ data: SamlResultView }>().data } : {}) };
  }
  const enabled = { enabled: true, provider: 'sessions', apiUrl: '', tenantId: 'tenant-a', cacheTtlSeconds: 0, timeoutMs: 2000 };

  test('defaults: off, proxy.yml decides (its service creates the session)', async () => {
    const section = (await view()).settings['sessionService'];
    assert.deepEqual(section, { enabled: false, provider: null, apiUrl: null, tenantId: null, cacheTtlSeconds: 300, timeoutMs: 2000, apiKey: null });
    const login = await ssoLogin();
    assert.equal(login.status, 200, login.text);
    assert.ok(fileService.sessions.has(login.result?.sessionId ?? ''), 'created at the proxy.yml service');
    assert.equal(settingsService.calls.length, 0);
  });

  test('validation: enabled needs provider and apiUrl; bounds and types named at once; nothing saved', async () => {
    const before = (await view()).version;
    const res = await put({ enabled: true, apiUrl: 'javascript:alert(1)', cacheTtlSeconds: -1, timeoutMs: 10, apiKey: 42 });
    assert.equal(res.status, 400, res.text);
    const fields = res.json<{ details: { fields: Array<{ field: string }> } }>().details.fields.map((f) => f.field).sort();
    assert.deepEqual(fields, ['sessionService.apiKey', 'sessionService.apiUrl', 'sessionService.cacheTtlSeconds', 'sessionService.provider', 'sessionService.timeoutMs']);
    assert.equal((await view()).version, before);
  });

  test('enabled with an API key: sealed at rest, masked on read, sent on create, validate and revoke; proxy.yml service no longer called', async () => {
    const res = await put({ ...enabled, apiUrl: ` ${settingsService.url} `, apiKey });
    assert.equal(res.status, 200, res.text);
    const section = res.json<{ data: SettingsView }>().data.settings['sessionService'];
    assert.equal(section?.['apiKey'], '********');
    assert.equal(section?.['apiUrl'], settingsService.url, 'trimmed');
    assert.doesNotMatch(res.text, new RegExp(apiKey));
    assert.doesNotMatch((await call('GET', '/api/settings', { token: adminToken })).text, new RegExp(apiKey));

    // At rest: sealed (SecretBox v1), the plaintext nowhere in the stored row.
    const db = new Database(path.join(cp.dataDir, 'gateway.sqlite'), { readonly: true });
    try {
      const row = db.prepare('SELECT document FROM settings_versions ORDER BY version DESC LIMIT 1').get() as { document: string };
      assert.doesNotMatch(row.document, new RegExp(apiKey));
      const stored = JSON.parse(row.document) as { sessionService: { apiKey: string } };
      assert.match(stored.sessionService.apiKey, /^v1\./);
    } finally {
      db.close();
    }

    const fileCalls = fileService.calls.length;
    const login = await ssoLogin();
    assert.equal(login.status, 200, login.text);
    const { token, sessionId } = login.result as SamlResultView;
    assert.ok(settingsService.sessions.has(sessionId), 'created at the settings service');
    assert.equal((await session(token)).status, 200);
    assert.equal((await logout(token)).status, 200);
    assert.equal(settingsService.sessions.get(sessionId)?.revoked, true);
    assert.equal((await session(token)).status, 401);
    const calls = settingsService.calls;
    assert.equal(calls[0], 'POST /api/sessions');
    assert.ok(calls.includes(`GET /api/sessions/${sessionId}`), calls.join());
    assert.ok(calls.includes(`DELETE /api/sessions/${sessionId}`), calls.join());
    assert.ok(settingsService.authorizations.length >= 4);
    assert.ok(settingsService.authorizations.every((a) => a === `Bearer ${apiKey}`), 'the key on every call');
    assert.ok(settingsService.tenants.every((t) => t === 'tenant-a'));
    assert.equal(fileService.calls.length, fileCalls, 'the settings override proxy.yml');
  });

  test('a PUT without the key (or with the mask) keeps it; a wrong key is refused by the service: 503, never a silent success', async () => {
    const { apiKey: masked, ...rest } = (await view()).settings['sessionService'] ?? {};
    assert.equal(masked, '********');
    assert.equal((await put({ ...rest, tenantId: 'tenant-b' })).status, 200);
    const kept = await ssoLogin();
    assert.equal(kept.status, 200, kept.text);
    assert.equal(settingsService.authorizations.at(-1), `Bearer ${apiKey}`);

    assert.equal((await put({ ...rest, apiKey: 'not-the-right-key-0000' })).status, 200);
    const refused = await ssoLogin();
    assert.equal(refused.status, 503, refused.text);
    assert.equal(JSON.parse(refused.text).code, 'AUTH_SERVICE_UNAVAILABLE');

    assert.equal((await put({ ...rest, apiKey: null })).status, 200);
    assert.equal((await view()).settings['sessionService']?.['apiKey'], null);
    const without = await ssoLogin();
    assert.equal(without.status, 503, 'no key: the service refuses');
    assert.equal(settingsService.authorizations.at(-1), undefined, 'no Authorization header without a key');

    assert.equal((await put({ ...rest, apiKey })).status, 200);
    assert.equal((await ssoLogin()).status, 200);
  });

  test('the key is in no audit entry and no log line', async () => {
    const audit = await call('GET', '/api/audit-log?limit=100', { token: adminToken });
    assert.equal(audit.status, 200);
    assert.doesNotMatch(audit.text, new RegExp(apiKey));
    const updates = audit.json<{ data: Array<{ action: string; details: { changes?: Array<{ field: string; secret?: boolean; from?: unknown; to?: unknown }> } | null }> }>().data;
    const keyChanges = updates.flatMap((e) => e.details?.changes ?? []).filter((c) => c.field === 'sessionService.apiKey');
    assert.ok(keyChanges.length >= 3, JSON.stringify(keyChanges));
    assert.ok(keyChanges.every((c) => c.secret === true && !('from' in c) && !('to' in c)));
    const logs = await call('GET', '/api/logs?limit=1000', { token: adminToken });
    assert.equal(logs.status, 200);
    assert.doesNotMatch(logs.text, new RegExp(apiKey));
    assert.ok(cp.output.length > 0);
    assert.ok(!cp.output.some((line) => line.includes(apiKey)), 'the key in the process output');
  });

  test('disabled again: proxy.yml service back at once', async () => {
    const { apiKey: _masked, ...rest } = (await view()).settings['sessionService'] ?? {};
    assert.equal((await put({ ...rest, enabled: false })).status, 200);
    const fileCalls = fileService.calls.length;
    await eventually(async () => (await ssoLogin()).status === 200 && fileService.calls.length > fileCalls, 'the proxy.yml service in use');
  });
});
