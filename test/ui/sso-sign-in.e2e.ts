import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { request, startGatewayProcess, type GatewayProcess } from '@gateway/testing';
import { ssoConfig } from '../api/saml-fixtures';
import { idpMetadataXml } from '../api/idp-metadata-fixture';
import { makeSigningKey, TestIdp } from '../api/saml-test-idp';
import { inspectPage, launchChromium, watchPage, type PageProblem } from './browser';

/*
 * SAML single sign-on in Debian's chromium: one gateway process (--role all) and a SAML IdP on
 * loopback with its own login page. The sign-in page offers "Sign in with SSO" only once
 * authentication.sso is on; the button goes through initiate, the IdP's login page, the HTTP-POST
 * back to the ACS URL, and the one-time code exchange into the cookie session, signed in with the
 * role the IdP's groups map to. No console error, CSP violation or serious axe finding allowed.
 */
// A browser SSO login spends three credential-tier requests (initiate, callback, exchange; decision 21).
const ENV = { ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'correct horse battery staple', JWT_SECRET: 'sso-browser-secret-0123456789abcdef0123', API_RATE_LIMIT_CREDENTIALS_MAX: '20' };

describe('SSO sign-in in chromium (one gateway process, loopback IdP)', () => {
  let gateway: GatewayProcess;
  let idp: TestIdp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let watched: { problems: PageProblem[] };

  before(async () => {
    idp = await TestIdp.start();
    gateway = await startGatewayProcess({ role: 'all', config: 'version: "1.0.0"\n', env: ENV });
    idp.spEntityId = `${gateway.url}/api/auth/saml/metadata`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gateway?.stop();
    await idp?.stop();
  });

  async function freshPage(): Promise<void> {
    await context?.close();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    watched = watchPage(page);
  }

  async function signInThroughIdp(): Promise<void> {
    await page.goto(`${gateway.url}/admin/routes`);
    await page.getByRole('button', { name: 'Sign in with SSO' }).click();
    await page.getByRole('heading', { name: 'Test IdP sign in' }).waitFor();
    assert.equal(new URL(page.url()).origin, new URL(idp.ssoUrl).origin, 'the browser is at the IdP');
    await page.getByLabel('Username').fill(idp.user.nameId);
    await page.getByRole('button', { name: 'Sign in at the IdP' }).click();
  }

  test('SSO off: the sign-in page offers only the password', async () => {
    await freshPage();
    await page.goto(`${gateway.url}/admin/`);
    await page.getByRole('heading', { name: 'Sign in to the gateway' }).waitFor();
    // The methods call has answered once the page is idle; the button must still be absent.
    await page.waitForLoadState('networkidle');
    assert.equal(await page.getByRole('button', { name: 'Sign in with SSO' }).count(), 0);
    assert.deepEqual(watched.problems, []);
  });

  test('SSO on: button, IdP login page, POST back, signed in as admin through the mapped group', async () => {
    gateway.writeConfig(ssoConfig(idp, { acsUrl: `${gateway.url}/api/auth/saml/callback`, allowedReturnUrls: [] }));
    idp.user = { nameId: 'grace@example.com', attributes: { displayName: ['Grace Hopper'], groups: ['gateway-admins'] } };
    await freshPage();
    await page.goto(`${gateway.url}/admin/`);
    await page.getByRole('button', { name: 'Sign in with SSO' }).waitFor();
    assert.deepEqual(await inspectPage(page, 'sso-01-sign-in-with-sso'), [], 'axe-core: serious or critical issues on the sign-in page with SSO');
    await signInThroughIdp();
    await page.getByRole('heading', { name: 'Routes' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/routes', 'back on the page the login started from');
    assert.equal(new URL(page.url()).hash, '', 'the one-time code left the address bar');
    await page.locator('.top-bar .who').filter({ hasText: 'grace@example.com' }).waitFor();
    // The session is the HttpOnly cookie: the page never held a token.
    const cookies = await context.cookies(gateway.url);
    assert.ok(cookies.some((c) => c.name === 'gateway_session' && c.httpOnly), 'an HttpOnly session cookie');
    assert.equal(await page.evaluate('document.cookie.includes("gateway_session")'), false);
    assert.deepEqual(await inspectPage(page, 'sso-02-signed-in'), [], 'axe-core: serious or critical issues after SSO sign-in');
    // A reload keeps the session (no code in the address any more).
    await page.reload();
    await page.locator('.top-bar .who').filter({ hasText: 'grace@example.com' }).waitFor();
    assert.deepEqual(watched.problems, []);
  });

  test('a user outside the admin group signs in with the role user', async () => {
    idp.user = { nameId: 'linus@example.com', attributes: { groups: ['developers'] } };
    await freshPage();
    await signInThroughIdp();
    await page.getByRole('heading', { name: 'The admin UI needs the admin role' }).waitFor();
    assert.match(await page.locator('main').innerText(), /linus@example\.com with the role user/);
    assert.deepEqual(watched.problems, []);
  });

  test('the settings page: general and SSO fields, the API\'s field errors on their fields, then saved', async () => {
    idp.user = { nameId: 'grace@example.com', attributes: { groups: ['gateway-admins'] } };
    await freshPage();
    await signInThroughIdp();
    await page.getByRole('heading', { name: 'Routes' }).waitFor();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    assert.equal(await page.getByLabel('Instance name').inputValue(), 'API Gateway');
    await page.getByLabel('Instance name').fill('  <b>Edge</b> gateway ');
    // SSO on without the IdP or the ACS URL: refused, each error next to its field.
    await page.getByLabel('SSO enabled (replaces authentication.sso of proxy.yml)').check();
    await page.getByLabel('Clock skew (seconds)').fill('999');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('alert').filter({ hasText: 'The settings were not saved' }).waitFor();
    for (const label of ['ACS URL', 'IdP entity ID', 'IdP SSO URL', 'IdP certificates (PEM)', 'Clock skew (seconds)']) {
      assert.equal(await page.getByLabel(label, { exact: true }).getAttribute('aria-invalid'), 'true', label);
    }
    assert.match(await page.locator('#setting-sso-clockSkewSeconds-error').innerText(), /clockSkewSeconds must be between 0 and 300/);
    assert.deepEqual(await inspectPage(page, 'sso-03-settings-errors'), [], 'axe-core: serious or critical issues on the settings page with errors');
    // Fixed: SSO stays off in settings (proxy.yml keeps serving it), the name is saved sanitized.
    await page.getByLabel('SSO enabled (replaces authentication.sso of proxy.yml)').uncheck();
    await page.getByLabel('Clock skew (seconds)').fill('60');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as version 1.' }).waitFor();
    assert.equal(await page.getByLabel('Instance name').inputValue(), 'Edge gateway');
    assert.equal(await page.locator('[aria-invalid="true"]').count(), 0);
    assert.deepEqual(watched.problems.filter((p) => !/status of 400/.test(p.text)), []);
  });

  test('SSO from the settings with single logout: signing out goes through the IdP and back to the sign-in page', async () => {
    const key = makeSigningKey();
    idp.spSloUrl = `${gateway.url}/api/auth/saml/logout`;
    const adminLogin = await request(`${gateway.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: ENV.ADMIN_EMAIL, password: ENV.ADMIN_PASSWORD }) });
    const token = adminLogin.json<{ data: { token: string } }>().data.token;
    const sso = { enabled: true, idpMetadataXml: idpMetadataXml(idp, { sloUrl: idp.sloUrl }), acsUrl: `${gateway.url}/api/auth/saml/callback`, spPrivateKey: key.key, returnUrl: '/admin/', groupsAttribute: 'groups', adminGroups: ['gateway-admins'] };
    const saved = await request(`${gateway.url}/api/settings`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ sso }) });
    assert.equal(saved.status, 200, saved.text);

    idp.user = { nameId: 'grace@example.com', attributes: { groups: ['gateway-admins'] } };
    await freshPage();
    await signInThroughIdp();
    await page.locator('.top-bar .who').filter({ hasText: 'grace@example.com' }).waitFor();
    const before = idp.logoutRequests.length;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the gateway' }).waitFor();
    await page.waitForURL(`${gateway.url}/admin/`);
    const seen = idp.logoutRequests.at(-1);
    assert.equal(idp.logoutRequests.length, before + 1, 'the IdP got a LogoutRequest');
    assert.deepEqual([seen?.nameId, seen?.signed], ['grace@example.com', true]);
    assert.equal((await context.cookies(gateway.url)).some((c) => c.name === 'gateway_session' && c.value !== ''), false, 'no session cookie left');
    assert.deepEqual(watched.problems, []);
  });
});
