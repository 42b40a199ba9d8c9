import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, request, type TestDatabase } from '@gateway/testing';
import { ADMIN_ENV } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { encoded, initiate, postCallback, ssoConfig, startLogin } from './saml-fixtures';
import { TestIdp } from './saml-test-idp';

// Two control-plane instances on one PostgreSQL (an unreachable one fails the suite): a login
// started on one finishes on the other, and nothing is accepted twice across them.
describe('SAML SSO across two control-plane instances (PostgreSQL)', () => {
  let database: TestDatabase;
  let idp: TestIdp;
  let a: ControlPlaneProcess;
  let b: ControlPlaneProcess;

  before(async () => {
    database = await createTestDatabase('cp_saml');
    idp = await TestIdp.start();
    idp.spEntityId = 'https://gateway.test/api/auth/saml/metadata';
    a = await startControlPlaneProcess({ env: { ...ADMIN_ENV, DATABASE_URL: database.url } });
    b = await startControlPlaneProcess({ env: { ...ADMIN_ENV, DATABASE_URL: database.url } });
    for (const cp of [a, b]) cp.writeConfig(ssoConfig(idp));
    idp.user = { nameId: 'ada@example.com', attributes: {} };
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await idp?.stop();
    await database?.drop();
  });

  test('a request issued by one instance is accepted at the other, once', async () => {
    const started = await startLogin(a.url, idp);
    const accepted = await postCallback(b.url, started.form);
    assert.equal(accepted.status, 200, accepted.text);
    for (const cp of [a, b]) assert.equal((await postCallback(cp.url, started.form)).status, 401, 'the request is used');
  });

  test('an assertion ID accepted at one instance is refused at the other', async () => {
    const first = await startLogin(a.url, idp);
    assert.equal((await postCallback(a.url, { SAMLResponse: encoded(idp.response(first.seen, { assertionId: '_shared-id' })), RelayState: first.form.RelayState })).status, 200);
    const second = await startLogin(b.url, idp);
    const replay = await postCallback(b.url, { SAMLResponse: encoded(idp.response(second.seen, { assertionId: '_shared-id' })), RelayState: second.form.RelayState });
    assert.equal(replay.status, 401, replay.text);
  });

  test('a one-time code issued at one instance is exchanged at the other', async () => {
    const started = await startLogin(a.url, idp);
    const res = await postCallback(a.url, started.form, { accept: 'text/html' });
    assert.equal(res.status, 303, res.text);
    const code = String(res.headers.location).split('#code=')[1] ?? '';
    const exchanged = await request(`${b.url}/api/auth/saml/exchange`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: started.cookie }, body: JSON.stringify({ code }) });
    assert.equal(exchanged.status, 200, exchanged.text);
  });
});

describe('SAML SSO limits (decision 21)', () => {
  let idp: TestIdp;
  let cp: ControlPlaneProcess;

  before(async () => {
    idp = await TestIdp.start();
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, API_RATE_LIMIT_CREDENTIALS_MAX: '2', API_RATE_LIMIT_GENERAL_MAX: '50' } });
    cp.writeConfig(ssoConfig(idp));
  });
  after(async () => {
    await cp?.stop();
    await idp?.stop();
  });

  test('the POSTs share the credentials tier; the metadata stays in the general tier', async () => {
    assert.equal((await initiate(cp.url)).res.status, 200);
    assert.equal((await postCallback(cp.url, { SAMLResponse: 'PA==', RelayState: 'x' })).status, 401);
    for (const path of ['initiate', 'callback', 'exchange']) {
      const res = await request(`${cp.url}/api/auth/saml/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(res.status, 429, `${path}: ${res.text}`);
    }
    const metadata = await request(`${cp.url}/api/auth/saml/metadata`);
    assert.equal(metadata.status, 200, metadata.text);
    assert.equal(metadata.headers['x-ratelimit-limit'], '50');
  });
});
