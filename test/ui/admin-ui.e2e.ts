import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { request, startGatewayProcess, type GatewayProcess } from '@gateway/testing';
import { inspectPage, launchChromium, watchPage, type PageProblem } from './browser';

/*
 * The admin UI in Debian's chromium against one real gateway process (--role all): sign-in with a
 * bad and a good password, the routes list of proxy.yml (25 routes: pages, direct page, search,
 * enabled filter), a deep link, reload keeping the session, sign out, and a non-admin user.
 * Any console error or CSP violation fails the test, and so does a serious or critical axe-core
 * finding on any page; every page is saved as a screenshot under test-artifacts/ui.
 */
const ADMIN = { email: 'admin@example.com', password: 'correct horse battery staple' };
const VIEWER = { email: 'viewer@example.com', password: 'Quiet-harbour-lamp-42!' };
const ENV = { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, JWT_SECRET: 'admin-ui-browser-secret-0123456789abcdef' };

const pad = (n: number): string => String(n).padStart(2, '0');
/** r01..r25; three are billing routes (found by description), r21..r25 are disabled. */
const ROUTES = Array.from({ length: 25 }, (_, i) => {
  const n = i + 1;
  const description = n % 8 === 0 ? `Billing service ${n}` : `Service number ${n}`;
  return `  - { id: r${pad(n)}, path: /svc-${pad(n)}/*, upstream: "http://127.0.0.1:9", description: "${description}", enabled: ${n <= 20} }`;
});
const PROXY_FILE = `version: "1.0.0"\nroutes:\n${ROUTES.join('\n')}\n`;

/** The browser's own line for a 401 the test asked for (a wrong password), and nothing else. */
const isExpected401 = (problem: PageProblem, urlSuffix: string): boolean =>
  problem.url.endsWith(urlSuffix) && /Failed to load resource: the server responded with a status of 401/.test(problem.text);

describe('admin UI in chromium (one gateway process)', () => {
  let gateway: GatewayProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let watched: { problems: PageProblem[] };

  const rows = () => page.locator('table.routes tbody tr');
  const rowIds = async (): Promise<string[]> =>
    (await page.locator('table.routes tbody tr td:first-child a').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''))).map((href) =>
      href.slice(href.lastIndexOf('/') + 1),
    );
  const summary = () => page.getByRole('status').filter({ hasText: /route/ });

  before(async () => {
    gateway = await startGatewayProcess({ role: 'all', config: PROXY_FILE, env: ENV });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    watched = watchPage(page);
  });
  after(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  test('a wrong password shows the error on the sign-in page', async () => {
    await page.goto(`${gateway.url}/admin/`);
    await page.getByRole('heading', { name: 'Sign in to the gateway' }).waitFor();
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The email or password is not correct.' }).waitFor();
    assert.deepEqual(await inspectPage(page, '01-sign-in-error'), [], 'axe-core: serious or critical issues on 01-sign-in-error');
    const unexpected = watched.problems.filter((p) => !isExpected401(p, '/api/auth/login'));
    assert.deepEqual(unexpected, []);
    watched.problems.length = 0;
  });

  test('signing in shows the routes of proxy.yml, ten a page', async () => {
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Routes' }).waitFor();
    await summary().filter({ hasText: '25 routes, page 1 of 3' }).waitFor();
    assert.deepEqual(await rowIds(), ['r01', 'r02', 'r03', 'r04', 'r05', 'r06', 'r07', 'r08', 'r09', 'r10']);
    const first = rows().first();
    assert.match((await first.innerText()).replace(/\s+/g, ' '), /\/svc-01\/\* Service number 1 http:\/\/127\.0\.0\.1:9 All Yes Unknown — proxy\.yml \(read-only\) Defined in the file: change it there/);
    assert.equal(new URL(page.url()).pathname, '/admin/routes');
    assert.deepEqual(await inspectPage(page, '02-routes-page-1'), [], 'axe-core: serious or critical issues on 02-routes-page-1');
  });

  test('next, direct page and previous move through the 25 routes, one API request per new page', async () => {
    const apiRequests: string[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname.startsWith('/api/')) apiRequests.push(`${req.method()} ${new URL(req.url()).pathname}${new URL(req.url()).search}`);
    });
    await page.getByRole('link', { name: 'Next' }).click();
    await summary().filter({ hasText: 'page 2 of 3' }).waitFor();
    assert.deepEqual(await rowIds(), ['r11', 'r12', 'r13', 'r14', 'r15', 'r16', 'r17', 'r18', 'r19', 'r20']);
    await page.getByRole('link', { name: 'Page 3' }).click();
    await summary().filter({ hasText: 'page 3 of 3' }).waitFor();
    assert.deepEqual(await rowIds(), ['r21', 'r22', 'r23', 'r24', 'r25']);
    assert.deepEqual(apiRequests, ['GET /api/routes?limit=10&offset=10', 'GET /api/routes?limit=10&offset=20'], 'no request per row, no session re-check');
    page.removeAllListeners('request');
    assert.equal(new URL(page.url()).search, '?page=3');
    assert.deepEqual(await inspectPage(page, '03-routes-page-3'), [], 'axe-core: serious or critical issues on 03-routes-page-3');
    await page.getByRole('link', { name: 'Previous' }).click();
    await summary().filter({ hasText: 'page 2 of 3' }).waitFor();
    assert.equal(await rows().count(), 10);
  });

  test('search over the description and the enabled filter', async () => {
    await page.getByLabel('Search path or description').fill('billing');
    await page.getByRole('button', { name: 'Apply' }).click();
    await summary().filter({ hasText: '3 routes, page 1 of 1' }).waitFor();
    assert.deepEqual(await rowIds(), ['r08', 'r16', 'r24']);
    assert.deepEqual(await inspectPage(page, '04-routes-search'), [], 'axe-core: serious or critical issues on 04-routes-search');

    await page.getByLabel('Search path or description').fill('svc-2');
    await page.getByLabel('Enabled').selectOption('false');
    await page.getByRole('button', { name: 'Apply' }).click();
    await summary().filter({ hasText: '5 routes, page 1 of 1' }).waitFor();
    assert.deepEqual(await rowIds(), ['r21', 'r22', 'r23', 'r24', 'r25']);
    assert.equal(new URL(page.url()).search, '?search=svc-2&enabled=false');
  });

  test('the page links keep the filters: page 3 of a search is page 3 of its matches', async () => {
    await page.getByLabel('Search path or description').fill('number');
    await page.getByLabel('Enabled').selectOption('all');
    await page.getByRole('button', { name: 'Apply' }).click();
    await summary().filter({ hasText: '22 routes, page 1 of 3' }).waitFor();
    await page.getByRole('link', { name: 'Page 3' }).click();
    await summary().filter({ hasText: '22 routes, page 3 of 3' }).waitFor();
    assert.deepEqual(await rowIds(), ['r23', 'r25'], 'the 22 without the billing ones, not r21..r25');
    assert.equal(new URL(page.url()).search, '?search=number&page=3');
    assert.equal(await page.getByLabel('Search path or description').inputValue(), 'number');
  });

  test('a deep link to a route opens its page; a reload keeps the session', async () => {
    await page.goto(`${gateway.url}/admin/routes/r05`);
    await page.getByRole('heading', { name: 'Route /svc-05/*' }).waitFor();
    await page.getByText('proxy.yml: change it in the file').waitFor();
    assert.deepEqual(await inspectPage(page, '05-route-detail'), [], 'axe-core: serious or critical issues on 05-route-detail');
    await page.reload();
    await page.getByRole('heading', { name: 'Route /svc-05/*' }).waitFor();
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'gateway_session');
    assert.equal(session?.httpOnly, true);
    assert.equal(session?.sameSite, 'Strict');
    assert.equal(await page.evaluate<boolean>("document.cookie.includes('gateway_session')"), false, 'the token is out of reach of page scripts');
  });

  test('on a 390-pixel-wide screen the list fits the width, in the same session (a new tab keeps it)', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await context.storageState() });
    try {
      const small = await phone.newPage();
      const smallWatch = watchPage(small);
      await small.goto(`${gateway.url}/admin/routes`);
      await small.getByRole('status').filter({ hasText: '25 routes, page 1 of 3' }).waitFor();
      assert.equal(await small.evaluate<boolean>('document.documentElement.scrollWidth <= 390'), true, 'no horizontal scrolling');
      assert.deepEqual(await inspectPage(small, '05b-routes-390px'), [], 'axe-core at 390 px');
      assert.deepEqual(smallWatch.problems, []);
    } finally {
      await phone.close();
    }
  });

  test('a session revoked elsewhere leads back to sign-in with a message; signing in again returns to the same page', async () => {
    const token = (await context.cookies()).find((c) => c.name === 'gateway_session')?.value ?? '';
    const revoked = await request(`${gateway.url}/api/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    assert.equal(revoked.status, 200, revoked.text);
    await page.getByRole('link', { name: 'Back to routes' }).click();
    await page.getByText('Your session has expired. Sign in again.').waitFor();
    assert.deepEqual(await inspectPage(page, '06-session-expired'), [], 'axe-core: serious or critical issues on 06-session-expired');
    // The list asks for its page and, opening the live stream, for the monitoring summary: both meet the revoked session.
    // The detail page left behind holds the stream too: its end (token revoked) makes the store ask once for the session.
    const unexpected = watched.problems.filter(
      (p) =>
        !isExpected401(p, '/api/routes?limit=10&offset=0') &&
        !isExpected401(p, '/api/monitoring/summary?window=15m') &&
        !isExpected401(p, '/api/monitoring/stream') &&
        !isExpected401(p, '/api/auth/session'),
    );
    assert.deepEqual(unexpected, []);
    watched.problems.length = 0;
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Routes' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/routes');
  });

  test('sign out returns to the sign-in page and the session is gone after a reload', async () => {
    await page.getByRole('link', { name: 'Routes', exact: true }).click();
    await page.getByRole('heading', { name: 'Routes' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    assert.deepEqual(await inspectPage(page, '07-signed-out'), [], 'axe-core: serious or critical issues on 07-signed-out');
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to the gateway' }).waitFor();
    assert.deepEqual((await context.cookies()).map((c) => c.name), []);
  });

  test('a user without the admin role sees that the UI needs it, and can sign out', async () => {
    const login = await request(`${gateway.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    const token = JSON.parse(login.text).data.token as string;
    const created = await request(`${gateway.url}/api/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ ...VIEWER, role: 'user' }),
    });
    assert.equal(created.status, 201, created.text);

    await page.getByLabel('Email').fill(VIEWER.email);
    await page.getByLabel('Password').fill(VIEWER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'The admin UI needs the admin role' }).waitFor();
    assert.deepEqual(await inspectPage(page, '08-admin-role-required'), [], 'axe-core: serious or critical issues on 08-admin-role-required');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the gateway' }).waitFor();
  });

  test('no console error and no CSP violation on any page', () => {
    assert.deepEqual(watched.problems, []);
  });
});
