import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from '@gateway/testing';
import { ADMIN_ENV, caller, login, ADMIN, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { idpMetadataXml } from './idp-metadata-fixture';
import { ACS_URL, encoded, initiate, postCallback, SP_ENTITY_ID } from './saml-fixtures';
import { makeSigningKey, TestIdp } from './saml-test-idp';

interface SsoView {
  version: number;
  settings: { sso: Record<string, unknown> };
}

/*
 * The sso section of /api/settings as the SAML configuration: validated field by field, the IdP
 * side imported from metadata, the SP key sealed and write-only, applied without a restart, and
 * IdP-initiated login only when allowIdpInitiated says so. proxy.yml has no sso block here.
 */
describe('SSO settings section (/api/settings, one control plane)', () => {
  let cp: ControlPlaneProcess;
  let idp: TestIdp;
  let call: Call;
  let token: string;
  const spKey = makeSigningKey();

  before(async () => {
    idp = await TestIdp.start();
    idp.spEntityId = SP_ENTITY_ID;
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, API_RATE_LIMIT_CREDENTIALS_MAX: '200' } });
    call = caller(cp);
    token = await login(call, ADMIN);
  });
  after(async () => {
    await cp?.stop();
    await idp?.stop();
  });

  const put = (sso: Record<string, unknown>) => call('PUT', '/api/settings', { token, body: { sso } });
  const view = async (): Promise<SsoView> => (await call('GET', '/api/settings', { token })).json<{ data: SsoView }>().data;
  const fieldsOf = (res: { json<T>(): T }) => res.json<{ details: { fields: Array<{ field: string; message: string }> } }>().details.fields;

  test('SSO off by default: initiate is 503 and the methods say so', async () => {
    assert.equal((await initiate(cp.url)).res.status, 503);
    assert.deepEqual((await request(`${cp.url}/api/auth/methods`)).json(), { success: true, data: { password: true, sso: { enabled: false } } });
  });

  test('enabled without the IdP and ACS fields: every missing field named at once; nothing saved', async () => {
    const res = await put({ enabled: true, clockSkewSeconds: 999, idpSloUrl: 'javascript:alert(1)', allowedReturnUrls: ['ftp://x'], adminGroups: [''] });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(fieldsOf(res).map((f) => f.field).sort(), [
      'sso.acsUrl',
      'sso.adminGroups',
      'sso.allowedReturnUrls',
      'sso.clockSkewSeconds',
      'sso.idpCertificates',
      'sso.idpEntityId',
      'sso.idpSloUrl',
      'sso.idpSsoUrl',
    ]);
    assert.equal((await view()).version, 0);
  });

  test('bad metadata, certificates and a non-string key are named with the reason', async () => {
    const res = await put({ enabled: true, acsUrl: ACS_URL, idpMetadataXml: '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>', idpCertificates: ['not a pem'], spPrivateKey: 42 });
    assert.equal(res.status, 400, res.text);
    const fields = fieldsOf(res);
    assert.deepEqual(fields.map((f) => f.field).sort(), ['sso.idpCertificates', 'sso.idpMetadataXml', 'sso.spPrivateKey']);
    assert.match(fields.find((f) => f.field === 'sso.idpMetadataXml')?.message ?? '', /idpMetadataXml has no IDPSSODescriptor/);
    const doctype = await put({ enabled: true, acsUrl: ACS_URL, idpMetadataXml: `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${idpMetadataXml(idp)}` });
    assert.match(fieldsOf(doctype)[0]?.message ?? '', /DOCTYPE/);
  });

  test('metadata import: SSO on from settings alone, sanitized, the SP key sealed and shown masked; requests signed with it', async () => {
    const res = await put({ enabled: true, idpMetadataXml: `  ${idpMetadataXml(idp)}\n`, acsUrl: ` ${ACS_URL} `, spPrivateKey: spKey.key, spCertificate: spKey.cert, nameAttribute: ' displayName ', groupsAttribute: 'groups', adminGroups: ['gateway-admins'], allowedReturnUrls: [] });
    assert.equal(res.status, 200, res.text);
    const sso = res.json<{ data: SsoView }>().data.settings.sso;
    assert.equal(sso['spPrivateKey'], '********');
    assert.equal(sso['acsUrl'], ACS_URL);
    assert.equal(sso['nameAttribute'], 'displayName');
    assert.ok(String(sso['idpMetadataXml']).startsWith('<md:EntityDescriptor'));
    assert.doesNotMatch(res.text, /PRIVATE KEY/);

    const started = await initiate(cp.url);
    assert.equal(started.res.status, 200, started.res.text);
    const redirect = new URL(started.redirectUrl);
    assert.equal(`${redirect.origin}${redirect.pathname}`, idp.ssoUrl, 'the IdP address from the metadata');
    assert.ok(redirect.searchParams.has('Signature'), 'signed with the sealed SP key');
    const metadata = await request(`${cp.url}/api/auth/saml/metadata`);
    assert.match(metadata.text, new RegExp(`entityID="${SP_ENTITY_ID}"`));

    // A login against the IdP of the metadata, the role from the mapped group.
    idp.user = { nameId: 'grace@example.com', attributes: { displayName: ['Grace Hopper'], groups: ['gateway-admins'] } };
    const atIdp = await request(started.redirectUrl);
    const login = await postCallback(cp.url, atIdp.json());
    assert.equal(login.status, 200, login.text);
    assert.deepEqual(login.json<{ data: { user: { role: string; name: string } } }>().data.user, { ...login.json<{ data: { user: Record<string, unknown> } }>().data.user, role: 'admin', name: 'Grace Hopper' });

    // Neither the key nor its mask reaches the audit diff or the log.
    const audit = await call('GET', '/api/audit-log?limit=20', { token });
    const update = audit.json<{ data: Array<{ action: string; details: { changes: Array<{ field: string; from?: unknown; to?: unknown }> } }> }>().data.find((e) => e.action === 'settings.update');
    const keyChange = update?.details.changes.find((c) => c.field === 'sso.spPrivateKey');
    assert.ok(keyChange !== undefined && !('to' in keyChange) && !('from' in keyChange), JSON.stringify(keyChange));
    assert.doesNotMatch(audit.text, /PRIVATE KEY/);
    const keyBody = spKey.key.split('\n')[1] ?? 'x';
    assert.ok(!cp.output.some((line) => line.includes(keyBody)), 'the key in the log');
  });

  test('a PUT without the key keeps it (write-only); null removes it', async () => {
    const current = (await view()).settings.sso;
    const { spPrivateKey: _masked, ...rest } = current;
    assert.equal((await put({ ...rest, clockSkewSeconds: 30 })).status, 200);
    assert.ok(new URL((await initiate(cp.url)).redirectUrl).searchParams.has('Signature'), 'still signed');
    assert.equal((await put({ ...rest, spPrivateKey: null })).status, 200);
    assert.equal((await view()).settings.sso['spPrivateKey'], null);
    assert.equal(new URL((await initiate(cp.url)).redirectUrl).searchParams.has('Signature'), false, 'no key, no signature');
  });

  test('IdP-initiated (unsolicited) login: refused while allowIdpInitiated is off, accepted once it is on, once', async () => {
    const unsolicited = () => encoded(idp.response({ id: '', acsUrl: ACS_URL }, { inResponseTo: null }));
    const refused = await postCallback(cp.url, { SAMLResponse: unsolicited(), RelayState: '' });
    assert.equal(refused.status, 401, refused.text);
    const audit = await call('GET', '/api/audit-log?limit=5', { token });
    const reason = audit.json<{ data: Array<{ action: string; details: { reason?: string } | null }> }>().data.find((e) => e.action === 'auth.saml.refused')?.details?.reason;
    assert.equal(reason, 'unsolicited response (IdP-initiated login is off)');

    const { spPrivateKey: _masked, ...rest } = (await view()).settings.sso;
    assert.equal((await put({ ...rest, allowIdpInitiated: true })).status, 200);
    const response = unsolicited();
    const accepted = await postCallback(cp.url, { SAMLResponse: response, RelayState: '' });
    assert.equal(accepted.status, 200, accepted.text);
    // The assertion ID ledger still holds: the same unsolicited response is not a second login.
    assert.equal((await postCallback(cp.url, { SAMLResponse: response, RelayState: '' })).status, 401);
    // A solicited-looking response (an InResponseTo nothing vouches for) stays refused.
    assert.equal((await postCallback(cp.url, { SAMLResponse: encoded(idp.response({ id: '_forged', acsUrl: ACS_URL })), RelayState: '' })).status, 401);
    // A browser gets a code bound to a cookie set by this very answer, and a safe return URL only.
    const browser = await postCallback(cp.url, { SAMLResponse: unsolicited(), RelayState: 'https://evil.test/' }, { accept: 'text/html' });
    assert.equal(browser.status, 303, browser.text);
    assert.match(String(browser.headers.location), /^\/#code=/);
    const cookie = (browser.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
    assert.match(cookie, /^gateway_saml_browser=/);
    const code = String(browser.headers.location).split('#code=')[1] ?? '';
    const exchanged = await request(`${cp.url}/api/auth/saml/exchange`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ code }) });
    assert.equal(exchanged.status, 200, exchanged.text);
  });

  test('an SP key that is not a PEM private key: SSO answers 503 naming it, and is not offered, until replaced', async () => {
    const { spPrivateKey: _masked, ...rest } = (await view()).settings.sso;
    assert.equal((await put({ ...rest, spPrivateKey: 'not a key' })).status, 200);
    const started = await initiate(cp.url);
    assert.equal(started.res.status, 503, started.res.text);
    assert.deepEqual(started.res.json<{ code: string; error: string }>(), { success: false, code: 'SSO_NOT_CONFIGURED', error: 'sso.spPrivateKey in the settings is not a PEM private key: replace it (PUT /api/settings)' });
    assert.deepEqual((await request(`${cp.url}/api/auth/methods`)).json(), { success: true, data: { password: true, sso: { enabled: false } } });
    assert.equal((await put({ ...rest, spPrivateKey: spKey.key })).status, 200);
    assert.equal((await initiate(cp.url)).res.status, 200);
  });

  test('PUT replaces only the sections it sends: a PUT of general alone leaves SSO (and its key) on, and the reverse', async () => {
    const before = (await call('GET', '/api/settings', { token })).json<{ data: { version: number; settings: Record<string, Record<string, unknown>> } }>().data;
    assert.equal(before.settings['sso']?.['enabled'], true);
    const general = await call('PUT', '/api/settings', { token, body: { general: { ...before.settings['general'], instanceName: 'Partial PUT' } } });
    assert.equal(general.status, 200, general.text);
    const after = general.json<{ data: { version: number; settings: Record<string, Record<string, unknown>> } }>().data;
    assert.equal(after.version, before.version + 1);
    assert.equal(after.settings['general']?.['instanceName'], 'Partial PUT');
    assert.deepEqual(after.settings['sso'], before.settings['sso'], 'sso kept as stored, key still set');
    assert.deepEqual(after.settings['events'], before.settings['events']);
    assert.deepEqual(after.settings['sessionService'], before.settings['sessionService']);
    const started = await initiate(cp.url);
    assert.equal(started.res.status, 200, 'SSO still on');
    assert.ok(new URL(started.redirectUrl).searchParams.has('Signature'), 'the sealed key still signs');
    // The audit diff names only what changed.
    const audit = await call('GET', '/api/audit-log?limit=5', { token });
    const update = audit.json<{ data: Array<{ action: string; details: { version: number; changes: Array<{ field: string }> } }> }>().data.find((e) => e.action === 'settings.update' && e.details.version === after.version);
    assert.deepEqual(update?.details.changes.map((c) => c.field), ['general.instanceName']);
    // And the reverse: an sso-only PUT keeps general.
    const { spPrivateKey: _masked, ...rest } = after.settings['sso'] ?? {};
    const sso = await put({ ...rest, clockSkewSeconds: 45 });
    assert.equal(sso.status, 200, sso.text);
    assert.equal(sso.json<{ data: { settings: { general: { instanceName: string } } } }>().data.settings.general.instanceName, 'Partial PUT');
  });

  test('restore: an earlier settings version brings the earlier SSO configuration back', async () => {
    const versions = (await call('GET', '/api/settings/versions', { token })).json<{ data: Array<{ version: number }> }>().data;
    const first = Math.min(...versions.map((v) => v.version));
    assert.equal((await call('POST', '/api/settings', { token, body: { restoreVersion: first } })).status, 200);
    const sso = (await view()).settings.sso;
    assert.equal(sso['clockSkewSeconds'], 60);
    assert.equal(sso['allowIdpInitiated'], false);
    assert.equal(sso['spPrivateKey'], '********', 'the sealed key of that version is back');
  });
});
