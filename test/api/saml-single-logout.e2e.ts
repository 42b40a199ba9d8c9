import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { inflateRawSync } from 'node:zlib';
import { request } from '@gateway/testing';
import { ADMIN, ADMIN_ENV, caller, login, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { idpMetadataXml } from './idp-metadata-fixture';
import { ACS_URL, postCallback, SP_ENTITY_ID, startLogin, type SamlResultView } from './saml-fixtures';
import { makeSigningKey, signedRedirect, TestIdp } from './saml-test-idp';

const SP_SLO_URL = 'https://gateway.test/api/auth/saml/logout';

/*
 * SAML single logout (HTTP-Redirect) against the loopback IdP, configured through the sso
 * settings section (idpSloUrl from the IdP metadata): SP-initiated from POST /api/auth/logout
 * with a signed LogoutRequest, IdP-initiated LogoutRequests ending that subject's sessions, and
 * the refusals (unsigned, foreign key, wrong issuer, unknown RelayState, DOCTYPE).
 */
describe('SAML single logout', () => {
  let cp: ControlPlaneProcess;
  let idp: TestIdp;
  let call: Call;
  let adminToken: string;
  const spKey = makeSigningKey();
  const stranger = makeSigningKey();

  before(async () => {
    idp = await TestIdp.start();
    idp.spEntityId = SP_ENTITY_ID;
    idp.spSloUrl = SP_SLO_URL;
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, API_RATE_LIMIT_CREDENTIALS_MAX: '200' } });
    call = caller(cp);
    adminToken = await login(call, ADMIN);
    const res = await call('PUT', '/api/settings', { token: adminToken, body: { sso: { enabled: true, idpMetadataXml: idpMetadataXml(idp, { sloUrl: idp.sloUrl }), acsUrl: ACS_URL, spPrivateKey: spKey.key, spCertificate: spKey.cert, returnUrl: '/admin/' } } });
    assert.equal(res.status, 200, res.text);
  });
  after(async () => {
    await cp?.stop();
    await idp?.stop();
  });

  async function ssoLogin(nameId: string): Promise<SamlResultView & { sessionIndex: string }> {
    idp.user = { nameId, attributes: {} };
    const started = await startLogin(cp.url, idp);
    const sessionIndex = idp.lastSessionIndex;
    const res = await postCallback(cp.url, started.form);
    assert.equal(res.status, 200, res.text);
    return { ...res.json<{ data: SamlResultView }>().data, sessionIndex };
  }
  const sessionStatus = async (token: string) => (await request(`${cp.url}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } })).status;
  /** An SLO endpoint URL the IdP produced, sent to this control plane. */
  const atGateway = (url: string) => request(`${cp.url}${new URL(url).pathname}${new URL(url).search}`);
  const lastAudit = async (action: string) =>
    (await call('GET', '/api/audit-log?limit=20', { token: adminToken })).json<{ data: Array<{ action: string; actor: string; details: Record<string, unknown> | null }> }>().data.find((e) => e.action === action);

  test('the SP metadata publishes our SingleLogoutService', async () => {
    const metadata = await request(`${cp.url}/api/auth/saml/metadata`);
    assert.match(metadata.text, new RegExp(`SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${SP_SLO_URL}"`));
  });

  test('SP-initiated: logout answers a signed LogoutRequest URL; the IdP confirms and the browser returns', async () => {
    const login = await ssoLogin('ada@example.com');
    const out = await request(`${cp.url}/api/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${login.token}` } });
    assert.equal(out.status, 200, out.text);
    const sloUrl = out.json<{ data: { loggedOut: boolean; sloUrl: string } }>().data.sloUrl;
    assert.ok(sloUrl.startsWith(`${idp.sloUrl}?`), sloUrl);
    const params = new URL(sloUrl).searchParams;
    assert.ok(params.has('Signature') && params.get('SigAlg')?.endsWith('rsa-sha256'), 'signed with the SP key');
    assert.match(inflateRawSync(Buffer.from(params.get('SAMLRequest') ?? '', 'base64')).toString('utf8'), /<samlp:LogoutRequest/);
    assert.equal(await sessionStatus(login.token), 401, 'the session ended at once');

    const atIdp = await request(sloUrl);
    assert.equal(atIdp.status, 302, atIdp.text);
    const seen = idp.logoutRequests.at(-1);
    assert.deepEqual([seen?.nameId, seen?.sessionIndex, seen?.nameIdFormat, seen?.signed], ['ada@example.com', login.sessionIndex, 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress', true]);
    const back = await atGateway(String(atIdp.headers.location));
    assert.equal(back.status, 302, back.text);
    assert.equal(back.headers.location, '/admin/');
    // The LogoutResponse answers its request once.
    assert.equal((await atGateway(String(atIdp.headers.location))).status, 401);
  });

  test("IdP-initiated: a signed LogoutRequest ends every session of that subject, and only those", async () => {
    const first = await ssoLogin('ada@example.com');
    const second = await ssoLogin('ada@example.com');
    const other = await ssoLogin('grace@example.com');
    const res = await atGateway(idp.logoutRequestUrl('ada@example.com', { relayState: 'idp-state' }));
    assert.equal(res.status, 302, res.text);
    const answer = new URL(String(res.headers.location));
    assert.equal(`${answer.origin}${answer.pathname}`, idp.sloUrl, 'a LogoutResponse back to the IdP');
    assert.equal(answer.searchParams.get('RelayState'), 'idp-state');
    const xml = inflateRawSync(Buffer.from(answer.searchParams.get('SAMLResponse') ?? '', 'base64')).toString('utf8');
    assert.match(xml, /StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/);
    assert.equal(await sessionStatus(first.token), 401);
    assert.equal(await sessionStatus(second.token), 401);
    assert.equal(await sessionStatus(other.token), 200, "another subject's session stays");
    const audit = await lastAudit('auth.saml.logout');
    assert.deepEqual([audit?.actor, audit?.details], ['ada@example.com', { sessions: 2 }]);
  });

  test('IdP-initiated with a SessionIndex: only that IdP session ends', async () => {
    const first = await ssoLogin('linus@example.com');
    const second = await ssoLogin('linus@example.com');
    assert.equal((await atGateway(idp.logoutRequestUrl('linus@example.com', { sessionIndex: first.sessionIndex }))).status, 302);
    assert.equal(await sessionStatus(first.token), 401);
    assert.equal(await sessionStatus(second.token), 200);
  });

  describe('refused (401 SAML_REJECTED, audited), sessions untouched', () => {
    let token = '';
    before(async () => {
      token = (await ssoLogin('margaret@example.com')).token;
    });
    const refused = async (url: string, reason: string) => {
      const res = await atGateway(url);
      assert.equal(res.status, 401, res.text);
      assert.equal(res.json<{ code: string }>().code, 'SAML_REJECTED');
      assert.deepEqual((await lastAudit('auth.saml.logout.refused'))?.details, { reason });
      assert.equal(await sessionStatus(token), 200);
    };

    test('an unsigned LogoutRequest (node-saml alone would accept it)', () => refused(idp.logoutRequestUrl('margaret@example.com', { key: null }), 'logout message not signed'));
    test('a LogoutRequest signed by a key that is not configured', () => refused(idp.logoutRequestUrl('margaret@example.com', { key: stranger.key }), 'signature missing or invalid'));
    test('a LogoutRequest from another issuer', () => refused(idp.logoutRequestUrl('margaret@example.com', { issuer: 'https://evil-idp.test' }), 'wrong Issuer'));
    test('a LogoutResponse to no request of ours', async () => {
      await refused(signedRedirect(SP_SLO_URL, 'SAMLResponse', idp.logoutResponse('_never-sent'), 'forged-relay', idp.signing.key), 'RelayState unknown, used or expired');
    });
    test('a LogoutResponse with a non-Success status to our request: refused and recorded; the local session stays ended; the request is spent', async () => {
      const alan = await ssoLogin('alan@example.com');
      const out = await request(`${cp.url}/api/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${alan.token}` } });
      assert.equal(out.status, 200, out.text);
      const sloUrl = out.json<{ data: { sloUrl: string } }>().data.sloUrl;
      const relayState = new URL(sloUrl).searchParams.get('RelayState') ?? undefined;
      assert.ok(relayState !== undefined, 'the LogoutRequest carries a RelayState');
      const atIdp = await request(sloUrl);
      assert.equal(atIdp.status, 302, atIdp.text);
      const seen = idp.logoutRequests.at(-1);
      assert.equal(seen?.nameId, 'alan@example.com');
      const failed = idp.logoutResponse(seen?.id ?? '', 'urn:oasis:names:tc:SAML:2.0:status:Responder');
      await refused(signedRedirect(SP_SLO_URL, 'SAMLResponse', failed, relayState, idp.signing.key), 'status is not Success');
      assert.equal(await sessionStatus(alan.token), 401, 'the gateway session ended at logout, whatever the IdP answers');
      // The request answers once: the IdP's Success response after it finds it spent.
      assert.equal((await atGateway(String(atIdp.headers.location))).status, 401);
    });
    test('a DOCTYPE, a message that is not deflated, and no message', async () => {
      await refused(signedRedirect(SP_SLO_URL, 'SAMLRequest', '<!DOCTYPE x [<!ENTITY e "e">]><x/>', undefined, idp.signing.key), 'message holds a DOCTYPE or entity declaration');
      await refused(`${SP_SLO_URL}?SAMLRequest=${encodeURIComponent(Buffer.from('<x/>').toString('base64'))}`, 'message is not deflated or too large');
      await refused(`${SP_SLO_URL}?x=1`, 'no SAMLRequest or SAMLResponse');
    });
  });
});
