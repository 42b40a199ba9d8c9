import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from '@gateway/testing';
import { ADMIN_ENV, eventually } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { postCallback, SP_ENTITY_ID, ssoConfig, startLogin, type SamlResultView } from './saml-fixtures';
import { TestIdp } from './saml-test-idp';
import { FakeSessionService } from './session-service-fake';

const ENV = { ...ADMIN_ENV, API_RATE_LIMIT_CREDENTIALS_MAX: '200' };

/** proxy.yml: SSO, and the session service of `authentication` when given (decision 23). */
function config(idp: TestIdp, service?: { url: string; cacheTTL: number }): string {
  const sso = JSON.parse(ssoConfig(idp)) as { version: string; authentication: Record<string, unknown> };
  if (service !== undefined) {
    Object.assign(sso.authentication, { provider: 'sessions', apiUrl: service.url, tenantId: 'gateway-tests', sessionValidation: { enabled: true, cacheTTL: service.cacheTTL } });
  }
  return JSON.stringify(sso);
}

describe('SSO sessions (decision 23)', () => {
  let idp: TestIdp;
  let cp: ControlPlaneProcess;
  let service: FakeSessionService;

  before(async () => {
    idp = await TestIdp.start();
    idp.spEntityId = SP_ENTITY_ID;
    service = await (async () => {
      const s = new FakeSessionService();
      await s.start();
      return s;
    })();
    cp = await startControlPlaneProcess({ env: ENV });
  });
  after(async () => {
    await cp?.stop();
    await idp?.stop();
    await service?.close();
  });

  async function ssoLogin(): Promise<SamlResultView> {
    const started = await startLogin(cp.url, idp);
    const res = await postCallback(cp.url, started.form);
    assert.equal(res.status, 200, res.text);
    return res.json<{ data: SamlResultView }>().data;
  }
  const session = (token: string) => request(`${cp.url}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } });
  const logout = (token: string) => request(`${cp.url}/api/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  // proxy.yml is read again at most every 5 s for the session service settings.
  const configure = async (text: string, check: () => Promise<boolean>) => {
    cp.writeConfig(text);
    await eventually(check, 'the new proxy.yml in effect', 15_000);
  };

  describe("the gateway's own sessions (no provider)", () => {
    before(() => cp.writeConfig(config(idp)));

    test('the SAML token carries a stored session: checked, then refused once logged out', async () => {
      const result = await ssoLogin();
      const claims = JSON.parse(Buffer.from(result.token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
      assert.equal(claims['sid'], result.sessionId);
      assert.notEqual(claims['jti'], result.sessionId);
      const checked = await session(result.token);
      assert.equal(checked.status, 200, checked.text);
      const data = checked.json<{ data: { valid: boolean; user: { email: string }; expiresAt: string } }>().data;
      assert.equal(data.valid, true);
      assert.equal(data.user.email, 'ada@example.com');
      assert.equal(data.expiresAt, result.expiresAt);
      const out = await logout(result.token);
      assert.equal(out.status, 200, out.text);
      assert.deepEqual(out.json(), { success: true, data: { loggedOut: true } }, 'no sloUrl: the IdP has no single logout endpoint');
      assert.equal((await session(result.token)).status, 401);
      assert.equal(service.calls.length, 0, 'no session service involved');
    });
  });

  describe('through the session service (provider + apiUrl)', () => {
    let token = '';
    let sessionId = '';

    before(async () => {
      const withService = config(idp, { url: service.url, cacheTTL: 1 });
      await configure(withService, async () => {
        const before = service.calls.length;
        const result = await ssoLogin();
        if (service.calls.length === before) return false;
        ({ token, sessionId } = result);
        return true;
      });
    });

    test('service up: the login created the session there; the guard validates through it', async () => {
      const stored = service.sessions.get(sessionId);
      assert.ok(stored, 'the session exists at the service');
      assert.equal(stored.user.email, 'ada@example.com');
      assert.equal(stored.nameId, 'ada@example.com');
      assert.match(stored.sessionIndex ?? '', /^_s/);
      assert.ok(service.tenants.every((t) => t === 'gateway-tests'));
      assert.equal((await session(token)).status, 200);
      assert.ok(service.calls.includes(`GET /api/sessions/${sessionId}`) || service.calls.length > 0);
    });

    test('revoked at the service: refused within cacheTTL (1 s), never later', async () => {
      const second = await ssoLogin();
      assert.equal((await session(second.token)).status, 200);
      const stored = service.sessions.get(second.sessionId);
      assert.ok(stored);
      stored.revoked = true;
      await eventually(async () => (await session(second.token)).status === 401, 'refused after the cache time', 5_000);
    });

    test('service down: 503 AUTH_SERVICE_UNAVAILABLE for the token and for a new login, never 401', async () => {
      service.mode = 'down';
      try {
        // The cached answer lasts at most cacheTTL (1 s); then the service must be asked.
        await eventually(async () => (await session(token)).status === 503, '503 once the cache time is over', 5_000);
        const res = await session(token);
        assert.equal(res.json<{ code: string }>().code, 'AUTH_SERVICE_UNAVAILABLE');
        const started = await startLogin(cp.url, idp);
        const login = await postCallback(cp.url, started.form);
        assert.equal(login.status, 503, login.text);
        assert.equal(login.json<{ code: string }>().code, 'AUTH_SERVICE_UNAVAILABLE');
      } finally {
        service.mode = 'up';
      }
      assert.equal((await session(token)).status, 200, 'back once the service is');
    });

    test('service slow (no answer): 503 after the 2 s deadline, not a hang', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      service.mode = 'slow';
      try {
        const res = await session(token);
        assert.equal(res.status, 503, res.text);
        assert.equal(res.json<{ code: string }>().code, 'AUTH_SERVICE_UNAVAILABLE');
      } finally {
        service.mode = 'up';
      }
    });

    test('logout revokes the session at the service', async () => {
      const out = await logout(token);
      assert.equal(out.status, 200, out.text);
      assert.equal(service.sessions.get(sessionId)?.revoked, true);
      assert.ok(service.calls.includes(`DELETE /api/sessions/${sessionId}`));
      assert.equal((await session(token)).status, 401);
    });
  });
});
