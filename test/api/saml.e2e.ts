import { createVerify } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTempDir, request, type ClientResponse } from '@gateway/testing';
import { ADMIN, ADMIN_ENV, caller, login, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { ACS_URL, ALLOWED_RETURN, encoded, initiate as initiateAt, postCallback, SP_ENTITY_ID, ssoConfig as ssoConfigFor, startLogin as startLoginAt, type SamlResultView, type StartedLogin } from './saml-fixtures';
import { makeSigningKey, TestIdp, type ResponseOptions } from './saml-test-idp';
import { EVIL_EMAIL, WRAPPING_LAYOUTS } from './saml-wrapping';

describe('SAML 2.0 SSO against a loopback IdP', () => {
  let cp: ControlPlaneProcess;
  let idp: TestIdp;
  let call: Call;
  let adminToken: string;
  const rotated = makeSigningKey();
  const stranger = makeSigningKey();
  const spKey = makeSigningKey();
  const keyDir = makeTempDir('saml-sp-key-');

  const ssoConfig = (extra: Record<string, unknown> = {}): string => ssoConfigFor(idp, extra, [rotated.cert]);

  before(async () => {
    idp = await TestIdp.start();
    idp.spEntityId = SP_ENTITY_ID;
    cp = await startControlPlaneProcess({ env: ADMIN_ENV });
    // Read at every login: no restart or reload needed for SSO settings.
    cp.writeConfig(ssoConfig());
    call = caller(cp);
    adminToken = await login(call, ADMIN);
  });
  after(async () => {
    await cp?.stop();
    await idp?.stop();
    keyDir.remove();
  });

  const initiate = (returnUrl?: string) => initiateAt(cp.url, returnUrl);
  const startLogin = (): Promise<StartedLogin> => startLoginAt(cp.url, idp);
  const post = (form: Record<string, string>, headers?: Record<string, string>) => postCallback(cp.url, form, headers);

  /** A fresh login whose response the IdP shapes with `options` (and `mutate`, after signing). */
  async function respond(options: ResponseOptions = {}, mutate: (xml: string) => string = (xml) => xml): Promise<ClientResponse> {
    const started = await startLogin();
    const xml = mutate(idp.response(started.seen, options));
    return post({ SAMLResponse: encoded(xml), RelayState: started.form.RelayState });
  }

  async function lastRefusal(): Promise<Record<string, unknown>> {
    const res = await call('GET', '/api/audit-log?limit=20', { token: adminToken });
    assert.equal(res.status, 200, res.text);
    const entry = res.json<{ data: Array<{ action: string; details: Record<string, unknown> | null }> }>().data.find((e) => e.action === 'auth.saml.refused');
    assert.ok(entry, 'a refusal audit entry');
    return entry.details ?? {};
  }

  async function assertRefused(res: ClientResponse, reason: string): Promise<void> {
    assert.equal(res.status, 401, res.text);
    assert.equal(res.json<{ code: string }>().code, 'SAML_REJECTED');
    assert.doesNotMatch(res.text, /eyJ|token/);
    const details = await lastRefusal();
    assert.deepEqual(details, { reason });
  }

  test('initiate: the IdP gets an AuthnRequest for our ACS URL from our entity id, and the browser a cookie', async () => {
    const started = await startLogin();
    assert.ok(started.seen.id.startsWith('_'));
    assert.equal(started.seen.acsUrl, ACS_URL);
    assert.equal(started.seen.issuer, SP_ENTITY_ID);
    assert.equal(started.seen.signed, false, 'no SP key: an unsigned request');
    assert.match(started.cookie, /^gateway_saml_browser=[A-Za-z0-9_-]{40,}$/);
    assert.ok(started.form.RelayState.length >= 32, 'an opaque RelayState');
  });

  test('initiate with an SP key: the Redirect-binding request is signed with it (RSA-SHA256)', async () => {
    const keyFile = path.join(keyDir.path, 'sp.key');
    writeFileSync(keyFile, spKey.key);
    cp.writeConfig(ssoConfig({ spPrivateKeyFile: keyFile }));
    try {
      const started = await initiate();
      assert.equal(started.res.status, 200, started.res.text);
      const query = new URL(started.redirectUrl).search.slice(1);
      const signature = new URLSearchParams(query).get('Signature') ?? '';
      const signedPart = query.slice(0, query.indexOf('&Signature='));
      assert.match(signedPart, /^SAMLRequest=.+&RelayState=.+&SigAlg=http%3A%2F%2Fwww\.w3\.org%2F2001%2F04%2Fxmldsig-more%23rsa-sha256$/);
      assert.equal(createVerify('RSA-SHA256').update(signedPart).verify(spKey.cert, signature, 'base64'), true);
    } finally {
      cp.writeConfig(ssoConfig());
    }
  });

  test('initiate: a return URL off this origin and off the allow list is 400 naming returnUrl', async () => {
    for (const returnUrl of ['https://evil.test/admin', '//evil.test/admin', '/\\evil.test', 'https://ui.test/other', 'javascript:alert(1)', 'https://ui.test.evil.test/admin']) {
      const before = idp.requests.length;
      const { res } = await initiate(returnUrl);
      assert.equal(res.status, 400, `${returnUrl}: ${res.text}`);
      const body = res.json<{ code: string; details: { fields: Array<{ field: string }> } }>();
      assert.equal(body.code, 'VALIDATION_ERROR');
      assert.equal(body.details.fields[0]?.field, 'returnUrl');
      assert.equal(idp.requests.length, before);
    }
    assert.equal((await initiate(`${ALLOWED_RETURN}/routes?x=1`)).res.status, 200);
    assert.equal((await initiate('/admin/routes')).res.status, 200);
  });

  test('methods: public, SSO offered with the address that starts it', async () => {
    const res = await request(`${cp.url}/api/auth/methods`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json(), { success: true, data: { password: true, sso: { enabled: true, initiateUrl: '/api/auth/saml/initiate' } } });
  });

  test('exchange with session "cookie": the browser session cookies, no token in the body', async () => {
    const started = await startLogin();
    const res = await post(started.form, { accept: 'text/html', cookie: started.cookie });
    assert.equal(res.status, 303, res.text);
    const code = String(res.headers.location).split('#code=')[1] ?? '';
    const exchanged = await request(`${cp.url}/api/auth/saml/exchange`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: started.cookie }, body: JSON.stringify({ code, session: 'cookie' }) });
    assert.equal(exchanged.status, 200, exchanged.text);
    const data = exchanged.json<{ data: Record<string, unknown> }>().data;
    assert.equal(data['session'], 'cookie');
    assert.equal(data['token'], undefined);
    assert.doesNotMatch(exchanged.text, /eyJ/);
    const cookies = (exchanged.headers['set-cookie'] ?? []).map((c) => c.split(';')[0] ?? '');
    const sessionCookie = cookies.find((c) => c.startsWith('gateway_session='));
    assert.ok(sessionCookie !== undefined && sessionCookie.length > 'gateway_session='.length, exchanged.text);
    const check = await request(`${cp.url}/api/auth/session`, { headers: { cookie: sessionCookie } });
    assert.equal(check.status, 200, check.text);
    assert.equal(check.json<{ data: { user: { email: string } } }>().data.user.email, 'ada@example.com');
  });

  test('metadata: public SP metadata XML naming our entity id and ACS URL', async () => {
    const res = await request(`${cp.url}/api/auth/saml/metadata`);
    assert.equal(res.status, 200, res.text);
    assert.match(String(res.headers['content-type']), /application\/samlmetadata\+xml/);
    assert.match(res.text, new RegExp(`entityID="${SP_ENTITY_ID}"`));
    assert.match(res.text, new RegExp(`Location="${ACS_URL}"`));
  });

  test('callback: the SAML result; the first login provisions the user, the role follows the groups at every login', async () => {
    idp.user = { nameId: 'grace@example.com', attributes: { groups: ['staff', 'gateway-admins'], displayName: ['Grace Hopper'] } };
    const first = await respond();
    assert.equal(first.status, 200, first.text);
    const result = first.json<{ success: boolean; data: SamlResultView }>();
    assert.equal(result.success, true);
    assert.deepEqual({ ...result.data.user, id: undefined }, { id: undefined, email: 'grace@example.com', name: 'Grace Hopper', role: 'admin' });
    assert.ok(Date.parse(result.data.expiresAt) > Date.now());
    assert.ok(result.data.sessionId.length > 0);
    assert.equal((await call('GET', '/api/users', { token: result.data.token })).status, 200, 'an admin token');

    idp.user = { nameId: 'grace@example.com', attributes: { groups: ['staff'] } };
    const second = await respond();
    assert.equal(second.status, 200, second.text);
    const demoted = second.json<{ data: SamlResultView }>().data;
    assert.equal(demoted.user.id, result.data.user.id, 'the same account');
    assert.equal(demoted.user.role, 'user');
    assert.equal(demoted.user.name, 'grace@example.com', 'no display name: the email');
    assert.equal((await call('GET', '/api/users', { token: demoted.token })).status, 403);
  });

  test('callback from a browser: 303 to the return URL with a one-time code, exchanged once by the same browser', async () => {
    idp.user = { nameId: 'linus@example.com', attributes: {} };
    const started = await startLogin();
    const res = await post(started.form, { accept: 'text/html,application/xhtml+xml' });
    assert.equal(res.status, 303, res.text);
    const location = String(res.headers.location);
    assert.match(location, /^\/admin#code=[A-Za-z0-9_-]{40,}$/);
    assert.doesNotMatch(location, /eyJ/, 'never a token in a URL');
    const code = location.split('#code=')[1] ?? '';
    const exchange = (cookie?: string) => call('POST', '/api/auth/saml/exchange', { body: { code }, headers: cookie === undefined ? {} : { cookie } });
    assert.equal((await exchange('gateway_saml_browser=another-browser')).status, 401, 'another browser');
  });

  test('exchange: the code works once, only with the cookie set at initiate', async () => {
    idp.user = { nameId: 'linus@example.com', attributes: {} };
    const started = await startLogin();
    const res = await post(started.form, { accept: 'text/html' });
    assert.equal(res.status, 303, res.text);
    const code = String(res.headers.location).split('#code=')[1] ?? '';
    assert.equal((await call('POST', '/api/auth/saml/exchange', { body: { code } })).status, 401, 'no cookie');
    const started2 = await startLogin();
    const res2 = await post(started2.form, { accept: 'text/html' });
    const code2 = String(res2.headers.location).split('#code=')[1] ?? '';
    const first = await call('POST', '/api/auth/saml/exchange', { body: { code: code2 }, headers: { cookie: started2.cookie } });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json<{ data: SamlResultView }>().data.user.email, 'linus@example.com');
    const again = await call('POST', '/api/auth/saml/exchange', { body: { code: code2 }, headers: { cookie: started2.cookie } });
    assert.equal(again.status, 401, 'single use');
  });

  test('a certificate on the rotation list is accepted', async () => {
    idp.user = { nameId: 'ada@example.com', attributes: {} };
    assert.equal((await respond({ key: rotated.key })).status, 200);
  });

  describe('refusals: 401 SAML_REJECTED and an audit entry naming the reason', () => {
    test('unsigned response', async () => assertRefused(await respond({ signResponse: false }), 'signature missing or invalid'));
    test('unsigned assertion', async () => assertRefused(await respond({ signAssertion: false }), 'signature missing or invalid'));
    test('nothing signed', async () => assertRefused(await respond({ signAssertion: false, signResponse: false }), 'signature missing or invalid'));
    test('signed by a key that is not configured', async () => assertRefused(await respond({ key: stranger.key }), 'signature missing or invalid'));
    test('NameID changed after signing', async () =>
      assertRefused(await respond({ nameId: 'ada@example.com' }, (xml) => xml.replace('>ada@example.com<', `>${EVIL_EMAIL}<`)), 'signature missing or invalid'));
    test('attribute changed after signing', async () =>
      assertRefused(await respond({ attributes: { groups: ['staff'] } }, (xml) => xml.replace('>staff<', '>gateway-admins<')), 'signature missing or invalid'));
    test('wrong audience', async () => assertRefused(await respond({ audience: 'https://other.test/sp' }), 'wrong audience'));
    test('wrong Recipient', async () => assertRefused(await respond({ recipient: 'https://evil.test/acs' }), 'wrong Recipient'));
    test('wrong Destination', async () => assertRefused(await respond({ destination: 'https://evil.test/acs' }), 'wrong Destination'));
    test('no Destination', async () => assertRefused(await respond({ destination: null }), 'wrong Destination'));
    test('wrong Issuer (response and assertion)', async () => assertRefused(await respond({ issuer: 'https://evil-idp.test' }), 'wrong Issuer'));
    test('wrong Issuer (assertion only)', async () => assertRefused(await respond({ assertionIssuer: 'https://evil-idp.test' }), 'wrong Issuer'));
    test('non-Success status', async () => assertRefused(await respond({ status: 'urn:oasis:names:tc:SAML:2.0:status:Requester' }), 'status is not Success'));
    test('expired beyond the clock skew (60 s)', async () => assertRefused(await respond({ notOnOrAfterOffset: -90 }), 'assertion expired'));
    test('not yet valid beyond the clock skew', async () => assertRefused(await respond({ notBeforeOffset: 90 }), 'assertion not yet valid'));
    test('missing InResponseTo', async () => assertRefused(await respond({ inResponseTo: null }), 'InResponseTo missing, unknown or already used'));
    test('unknown InResponseTo', async () => assertRefused(await respond({ inResponseTo: '_never-issued' }), 'InResponseTo missing, unknown or already used'));

    test('InResponseTo of another open request (RelayState of this one)', async () => {
      const other = await startLogin();
      const started = await startLogin();
      const xml = idp.response(other.seen);
      await assertRefused(await post({ SAMLResponse: encoded(xml), RelayState: started.form.RelayState }), 'InResponseTo missing, unknown or already used');
    });

    test('a used request: the same response posted twice', async () => {
      idp.user = { nameId: 'ada@example.com', attributes: {} };
      const started = await startLogin();
      assert.equal((await post(started.form)).status, 200);
      await assertRefused(await post(started.form), 'RelayState unknown, used or expired');
    });

    test('a replayed assertion ID, even in reply to a new request', async () => {
      idp.user = { nameId: 'ada@example.com', attributes: {} };
      assert.equal((await respond({ assertionId: '_replayed-assertion' })).status, 200);
      await assertRefused(await respond({ assertionId: '_replayed-assertion' }), 'assertion replayed');
    });

    test('DOCTYPE and entity declarations', async () => {
      const doctype = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "ada@example.com">]>';
      await assertRefused(await respond({}, (xml) => doctype + xml), 'SAMLResponse holds a DOCTYPE or entity declaration');
    });

    test('a deflated message', async () => {
      const started = await startLogin();
      const deflated = deflateRawSync(Buffer.from(idp.response(started.seen))).toString('base64');
      await assertRefused(await post({ SAMLResponse: deflated, RelayState: started.form.RelayState }), 'SAMLResponse is not XML (deflated or binary)');
    });

    test('an oversized message', async () => {
      const started = await startLogin();
      await assertRefused(await post({ SAMLResponse: 'A'.repeat(300 * 1024), RelayState: started.form.RelayState }), 'SAMLResponse too large');
    });

    test('a second root element after the signed Response', async () => {
      idp.user = { nameId: 'ada@example.com', attributes: {} };
      const res = await respond({}, (xml) => `${xml}<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>`);
      assert.equal(res.status, 401, res.text);
      const newest = (await call('GET', '/api/audit-log?limit=1', { token: adminToken })).json<{ data: Array<{ action: string; details: { reason?: string } }> }>().data[0];
      assert.deepEqual([newest?.action, newest?.details], ['auth.saml.refused', { reason: 'response malformed' }]);
    });

    test('no RelayState', async () => {
      const started = await startLogin();
      await assertRefused(await post({ SAMLResponse: started.form.SAMLResponse }), 'RelayState unknown, used or expired');
    });

    for (const [layout, wrap] of Object.entries(WRAPPING_LAYOUTS)) {
      test(`${layout} signature wrapping, the response signature kept as it was`, async () => {
        idp.user = { nameId: 'ada@example.com', attributes: {} };
        await assertRefused(await respond({}, wrap), 'signature missing or invalid');
      });
      if (layout === 'XSW1' || layout === 'XSW2') continue;
      test(`${layout} signature wrapping under a valid response signature`, async () => {
        idp.user = { nameId: 'ada@example.com', attributes: {} };
        const res = await respond({ afterAssertionSigned: wrap });
        assert.equal(res.status, 401, res.text);
        const details = await lastRefusal();
        assert.ok(['more than one assertion', 'signature missing or invalid'].includes(String(details['reason'])), String(details['reason']));
      });
    }
  });

  test('a comment inside NameID does not change the user', async () => {
    idp.user = { nameId: 'ada@example.com.evil.test', attributes: {} };
    const res = await respond({}, (xml) => xml.replace('>ada@example.com.evil.test<', '>ada@example.com<!---->.evil.test<'));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json<{ data: SamlResultView }>().data.user.email, 'ada@example.com.evil.test');
  });

  test('a disabled user: the SSO token is refused at once and SSO cannot sign them in; enabled again, they can', async () => {
    idp.user = { nameId: 'dora@example.com', attributes: {} };
    const first = await respond();
    assert.equal(first.status, 200, first.text);
    const { token, user } = first.json<{ data: SamlResultView }>().data;
    const disable = await call('PATCH', `/api/users/${user.id}`, { token: adminToken, body: { disabled: true } });
    assert.equal(disable.status, 200, disable.text);
    assert.equal((await call('GET', '/api/auth/session', { token })).status, 401);
    await assertRefused(await respond(), 'user disabled');
    assert.equal((await call('PATCH', `/api/users/${user.id}`, { token: adminToken, body: { disabled: false } })).status, 200);
    assert.equal((await respond()).status, 200);
  });

  test('clock skew edges: 30 s past NotOnOrAfter or before NotBefore is inside the 60 s skew', async () => {
    idp.user = { nameId: 'ada@example.com', attributes: {} };
    assert.equal((await respond({ notOnOrAfterOffset: -30 })).status, 200);
    assert.equal((await respond({ notBeforeOffset: 30 })).status, 200);
  });

  test('SSO off: initiate, callback and metadata answer 503 SSO_NOT_CONFIGURED', async () => {
    cp.writeConfig(JSON.stringify({ version: '1.0.0' }));
    try {
      for (const res of [await initiate(), { res: await post({ SAMLResponse: 'PA==', RelayState: 'x' }) }, { res: await request(`${cp.url}/api/auth/saml/metadata`) }]) {
        assert.equal(res.res.status, 503, res.res.text);
        assert.equal(res.res.json<{ code: string }>().code, 'SSO_NOT_CONFIGURED');
      }
      const methods = await request(`${cp.url}/api/auth/methods`);
      assert.equal(methods.status, 200, methods.text);
      assert.deepEqual(methods.json(), { success: true, data: { password: true, sso: { enabled: false } } });
      // Enabled but incomplete: not offered (the sign-in page shows no button that would fail).
      cp.writeConfig(ssoConfig({ idpSsoUrl: undefined }));
      assert.deepEqual((await request(`${cp.url}/api/auth/methods`)).json(), { success: true, data: { password: true, sso: { enabled: false } } });
    } finally {
      cp.writeConfig(ssoConfig());
    }
  });
});
