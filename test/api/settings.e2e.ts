import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultEventSettings } from '@gateway/events';
import { ADMIN, eventually, login, startAdminControlPlane, type AdminControlPlane, type Call } from './auth-fixtures';
import type { ControlPlaneProcess } from './control-plane-process';

interface SettingsView {
  version: number;
  changedAt: string | null;
  actor: string | null;
  settings: { general: Record<string, unknown>; sso: Record<string, unknown> };
}

const DEFAULT_GENERAL = {
  instanceName: 'API Gateway',
  routeDefaults: { requestTimeoutMs: 5000, retryAttempts: 3 },
  tokenLifetimeSeconds: 86400,
  allowedOrigins: [],
  logLevel: null,
  eventRetentionDays: 30,
  webhookDeliveryRetentionDays: 30,
};

/** The sso section (owned by the SAML feature; its own suite is settings-sso.e2e.ts). */
const DEFAULT_SSO = {
  enabled: false,
  idpMetadataXml: null,
  idpEntityId: null,
  idpSsoUrl: null,
  idpSloUrl: null,
  idpCertificates: [],
  spEntityId: null,
  acsUrl: null,
  spCertificate: null,
  clockSkewSeconds: 60,
  returnUrl: null,
  allowedReturnUrls: [],
  emailAttribute: null,
  nameAttribute: null,
  groupsAttribute: null,
  adminGroups: [],
  allowIdpInitiated: false,
  spPrivateKey: null,
};
const DEFAULT_SESSION_SERVICE = { enabled: false, provider: null, apiUrl: null, tenantId: null, cacheTtlSeconds: 300, timeoutMs: 2000, apiKey: null };

/** The sections features register (runbooks, AI: docs/runbooks.md, docs/ai.md), at their defaults. */
const FEATURE_SECTIONS = {
  runbooks: {
    enabled: true,
    dryRun: false,
    maxExecutionsPerHour: 10,
    approvalExpirySeconds: 300,
    kubernetes: { kubeconfig: null, namespace: 'default', deployment: 'gateway-data-plane', hpa: 'gateway-data-plane', podSelector: 'app.kubernetes.io/name=gateway,app.kubernetes.io/component=data-plane', minReplicas: 1, maxReplicas: 20 },
  },
  ai: { baseUrl: null, model: 'gpt-4o-mini', apiKey: null, timeoutMs: 20_000, maxTokens: 1500, monthlyBudgetUsd: 20, inputUsdPerMillionTokens: 0.15, outputUsdPerMillionTokens: 0.6, includeClientAddresses: false },
  assistant: { temperature: 0.2, extraInstructions: '' },
};

// The same suite on the embedded SQLite and on PostgreSQL (an unreachable PostgreSQL fails it).
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`settings API (${dialect})`, () => {
    let running: AdminControlPlane | undefined;
    let cp: ControlPlaneProcess;
    let call: Call;
    let adminToken: string;

    before(async () => {
      running = await startAdminControlPlane(dialect, 'cp_settings');
      ({ cp, call, adminToken } = running);
    });
    after(() => running?.stop());
    const view = async (): Promise<SettingsView> => (await call('GET', '/api/settings', { token: adminToken })).json<{ data: SettingsView }>().data;
    const put = (body: unknown) => call('PUT', '/api/settings', { token: adminToken, body });

    test('GET /api/settings before any change: version 0 with the defaults', async () => {
      const res = await call('GET', '/api/settings', { token: adminToken });
      assert.equal(res.status, 200);
      assert.deepEqual(res.json(), { success: true, data: { version: 0, changedAt: null, actor: null, settings: { general: DEFAULT_GENERAL, sso: DEFAULT_SSO, events: defaultEventSettings(), sessionService: DEFAULT_SESSION_SERVICE, ...FEATURE_SECTIONS } } });
    });

    test('admins only', async () => {
      assert.equal((await call('POST', '/api/users', { token: adminToken, body: { email: 'reader@example.com', password: 'quiet horse battery 2', role: 'user' } })).status, 201);
      const userToken = await login(call, { email: 'reader@example.com', password: 'quiet horse battery 2' });
      for (const [method, path, body] of [['GET', '/api/settings'], ['PUT', '/api/settings', {}], ['POST', '/api/settings', { restoreVersion: 1 }], ['GET', '/api/settings/versions']] as const) {
        assert.equal((await call(method, path, { token: userToken, ...(body === undefined ? {} : { body }) })).status, 403, `${method} ${path}`);
        assert.equal((await call(method, path, body === undefined ? {} : { body })).status, 401, `${method} ${path}`);
      }
    });

    test('PUT: every failing field at once, named by its path; nothing is saved', async () => {
      const res = await put({
        general: { instanceName: '<b></b>', tokenLifetimeSeconds: 5, allowedOrigins: ['ftp://files.example.com'], logLevel: 'loud', routeDefaults: { requestTimeoutMs: 50, retryAttempts: 11 }, eventRetentionDays: 'x', colour: 'red' },
        bogus: {},
      });
      assert.equal(res.status, 400, res.text);
      const json = res.json<{ success: boolean; code: string; error: string; details: { fields: Array<{ field: string; message: string }> } }>();
      assert.equal(json.success, false);
      assert.equal(json.code, 'VALIDATION_ERROR');
      const fields = json.details.fields.map((f) => f.field).sort();
      assert.deepEqual(fields, [
        'bogus',
        'general.allowedOrigins',
        'general.colour',
        'general.eventRetentionDays',
        'general.instanceName',
        'general.logLevel',
        'general.routeDefaults.requestTimeoutMs',
        'general.routeDefaults.retryAttempts',
        'general.tokenLifetimeSeconds',
      ]);
      assert.equal(json.error, json.details.fields[0]!.message);
      for (const body of ['[]', '"text"', JSON.stringify({ general: [] }), JSON.stringify({ general: { routeDefaults: 5 } })]) {
        const bad = await call('PUT', '/api/settings', { token: adminToken, body });
        assert.equal(bad.status, 400, body);
        assert.equal(bad.json()['code'], 'VALIDATION_ERROR');
      }
      assert.equal((await view()).version, 0);
    });

    test('PUT replaces and sanitizes: trimmed, markup stripped, origins normalized; left-out fields take their defaults', async () => {
      const res = await put({ general: { instanceName: '  <b>Prod</b> <i>gateway</i>  ', allowedOrigins: [' https://Admin.Example.com/ ', 'http://127.0.0.1:9999', 'https://admin.example.com'], routeDefaults: { retryAttempts: 1 }, eventRetentionDays: 7 } });
      assert.equal(res.status, 200, res.text);
      const data = res.json<{ success: boolean; data: SettingsView }>().data;
      assert.equal(data.version, 1);
      assert.equal(data.actor, ADMIN.email);
      assert.ok(!Number.isNaN(Date.parse(data.changedAt ?? '')));
      assert.deepEqual(data.settings.general, {
        ...DEFAULT_GENERAL,
        instanceName: 'Prod gateway',
        allowedOrigins: ['https://admin.example.com', 'http://127.0.0.1:9999'],
        routeDefaults: { requestTimeoutMs: 5000, retryAttempts: 1 },
        eventRetentionDays: 7,
      });
      assert.deepEqual(await view(), data);
      // The same document again changes nothing: no new version.
      assert.equal((await put({ general: data.settings.general })).json<{ data: SettingsView }>().data.version, 1);
    });

    test('changes apply at once: CORS origins and the token lifetime', async () => {
      const preflight = (origin: string) => call('OPTIONS', '/api/users', { headers: { origin, 'access-control-request-method': 'POST' } });
      assert.equal((await preflight('https://admin.example.com')).headers['access-control-allow-origin'], 'https://admin.example.com');
      assert.equal((await preflight('https://other.example.com')).headers['access-control-allow-origin'], undefined);
      // ALLOWED_ORIGINS (here the default local origins) stays allowed: settings add to it.
      assert.equal((await preflight('http://localhost:5173')).headers['access-control-allow-origin'], 'http://localhost:5173');

      const current = (await view()).settings.general;
      assert.equal((await put({ general: { ...current, tokenLifetimeSeconds: 600, allowedOrigins: ['https://other.example.com'] } })).status, 200);
      const res = await call('POST', '/api/auth/login', { body: ADMIN });
      assert.equal(res.json<{ data: { expiresIn: number } }>().data.expiresIn, 600);
      assert.equal((await preflight('https://other.example.com')).headers['access-control-allow-origin'], 'https://other.example.com');
      assert.equal((await preflight('https://admin.example.com')).headers['access-control-allow-origin'], undefined);
    });

    test('new routes take the route defaults of settings; what a body gives wins', async () => {
      const current = (await view()).settings.general;
      assert.equal((await put({ general: { ...current, routeDefaults: { requestTimeoutMs: 12000, retryAttempts: 1 } } })).status, 200);
      const created = await call('POST', '/api/routes', { token: adminToken, body: { id: 'defaults-taken', path: '/defaults-taken', upstream: 'http://127.0.0.1:9' } });
      assert.equal(created.status, 201, created.text);
      const route = created.json<{ data: { timeout: { request: number }; retry: { attempts: number } } }>().data;
      assert.equal(route.timeout.request, 12000);
      assert.equal(route.retry.attempts, 1);
      const explicit = await call('POST', '/api/routes', { token: adminToken, body: { id: 'defaults-given', path: '/defaults-given', upstream: 'http://127.0.0.1:9', timeout: 3000, retryAttempts: 4 } });
      const given = explicit.json<{ data: { timeout: { request: number }; retry: { attempts: number } } }>().data;
      assert.deepEqual([given.timeout.request, given.retry.attempts], [3000, 4]);
      // Back to the route model's defaults for the rest of the suite.
      assert.equal((await put({ general: { ...current } })).status, 200);
    });

    test('the log level applies at once (LOG_LEVEL=warn here: info lines appear only after the change)', async () => {
      const requestLines = () => cp.output.filter((line) => line.includes('"path":"/api/settings/versions"'));
      assert.equal((await call('GET', '/api/settings/versions', { token: adminToken })).status, 200);
      const current = (await view()).settings.general;
      assert.equal((await put({ general: { ...current, logLevel: 'info' } })).status, 200);
      assert.equal(requestLines().length, 0, 'an info line was written at LOG_LEVEL=warn');
      assert.equal((await call('GET', '/api/settings/versions', { token: adminToken })).status, 200);
      await eventually(async () => requestLines().length === 1, 'the request line at info');
    });

    test('GET /api/settings/versions: newest first with version, changedAt, actor; paginated', async () => {
      const res = await call('GET', '/api/settings/versions', { token: adminToken });
      assert.equal(res.status, 200);
      const json = res.json<{ success: boolean; data: Array<{ version: number; changedAt: string; actor: string; restoredFrom: number | null }>; pagination: Record<string, unknown> }>();
      assert.deepEqual(json.data.map((v) => v.version), [5, 4, 3, 2, 1]);
      assert.ok(json.data.every((v) => v.actor === ADMIN.email && !Number.isNaN(Date.parse(v.changedAt)) && v.restoredFrom === null));
      assert.deepEqual(json.pagination, { total: 5, limit: 10, offset: 0, hasMore: false });
      const page = (await call('GET', '/api/settings/versions?limit=1&offset=1', { token: adminToken })).json<{ data: Array<{ version: number }>; pagination: Record<string, unknown> }>();
      assert.deepEqual(page.data.map((v) => v.version), [4]);
      assert.equal((await call('GET', '/api/settings/versions?limit=0', { token: adminToken })).status, 400);
    });

    test('POST {restoreVersion} brings a version back as the newest; the history stays; bad or unknown versions are refused', async () => {
      const res = await call('POST', '/api/settings', { token: adminToken, body: { restoreVersion: 1 } });
      assert.equal(res.status, 200, res.text);
      const data = res.json<{ data: SettingsView }>().data;
      assert.equal(data.version, 6);
      assert.equal(data.settings.general['instanceName'], 'Prod gateway');
      assert.equal(data.settings.general['tokenLifetimeSeconds'], 86400);
      assert.deepEqual(data.settings.general['allowedOrigins'], ['https://admin.example.com', 'http://127.0.0.1:9999']);
      const versions = (await call('GET', '/api/settings/versions', { token: adminToken })).json<{ data: Array<{ version: number; restoredFrom: number | null }> }>().data;
      assert.deepEqual(versions.map((v) => [v.version, v.restoredFrom]), [[6, 1], [5, null], [4, null], [3, null], [2, null], [1, null]]);
      // Applied too: the lifetime is back to a day.
      assert.equal((await call('POST', '/api/auth/login', { body: ADMIN })).json<{ data: { expiresIn: number } }>().data.expiresIn, 86400);

      const missing = await call('POST', '/api/settings', { token: adminToken, body: { restoreVersion: 99 } });
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.json(), { success: false, error: 'Settings version not found', code: 'SETTINGS_VERSION_NOT_FOUND', details: { restoreVersion: 99 } });
      for (const body of [{}, { restoreVersion: 0 }, { restoreVersion: '1' }, { restoreVersion: 1, extra: true }]) {
        const bad = await call('POST', '/api/settings', { token: adminToken, body });
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(bad.json()['code'], 'VALIDATION_ERROR');
      }
    });

    test('every change and restore is audited with who and what changed', async () => {
      const entries = (await call('GET', '/api/audit-log?limit=100', { token: adminToken })).json<{
        data: Array<{ actor: string; action: string; details: { version: number; changes: Array<{ field: string; from?: unknown; to?: unknown }>; restoredFrom?: number } | null }>;
      }>().data;
      const updates = entries.filter((e) => e.action === 'settings.update');
      assert.deepEqual(updates.map((e) => e.details?.version).sort(), [1, 2, 3, 4, 5]);
      assert.ok(updates.every((e) => e.actor === ADMIN.email));
      const lifetime = updates.find((e) => e.details?.version === 2)!.details!.changes.find((c) => c.field === 'general.tokenLifetimeSeconds');
      assert.deepEqual(lifetime, { field: 'general.tokenLifetimeSeconds', from: 86400, to: 600 });
      const restore = entries.find((e) => e.action === 'settings.restore');
      assert.equal(restore?.details?.restoredFrom, 1);
      assert.ok(restore.details.changes.some((c) => c.field === 'general.logLevel' && c.from === 'info'));
    });
  });
}
