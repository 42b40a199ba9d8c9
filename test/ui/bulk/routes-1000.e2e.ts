import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startGatewayProcess, type GatewayProcess } from '@gateway/testing';
import { inspectPage, launchChromium, watchPage, type PageProblem } from '../browser';

/*
 * Bulk (the APISIX dashboard's taxonomy): the routes list with 1,000 routes in proxy.yml, one
 * gateway process (--role all). The first page renders and a page change costs exactly one API
 * request (no request per row). The render time is printed as a number, never asserted: speed is
 * measured by benchmarks, not tests.
 */
const ADMIN = { email: 'admin@example.com', password: 'correct horse battery staple' };
const ENV = { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, JWT_SECRET: 'admin-ui-bulk-secret-0123456789abcdef0123' };
const ROUTE_COUNT = 1000;
const id = (n: number): string => `b${String(n).padStart(4, '0')}`;
const PROXY_FILE = `version: "1.0.0"\nroutes:\n${Array.from(
  { length: ROUTE_COUNT },
  (_, i) => `  - { id: ${id(i + 1)}, path: /bulk-${i + 1}/*, upstream: "http://127.0.0.1:9", description: "Bulk route ${i + 1}", tags: [${i % 2 === 0 ? 'even' : 'odd'}] }`,
).join('\n')}\n`;

describe('admin UI bulk: the routes list with 1,000 routes', () => {
  let gateway: GatewayProcess;
  let browser: Browser;
  let page: Page;
  let watched: { problems: PageProblem[] };
  const rowIds = async (): Promise<string[]> =>
    (await page.locator('table.routes tbody tr td:first-child a').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''))).map((href) => href.slice(href.lastIndexOf('/') + 1));

  before(async () => {
    gateway = await startGatewayProcess({ role: 'all', config: PROXY_FILE, env: ENV, startTimeoutMs: 60_000 });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watched = watchPage(page);
    // The one sign-in of this file.
    await page.goto(`${gateway.url}/admin/`);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Routes' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  test('the first page renders (time reported) and each page change costs exactly one API request', async () => {
    await page.reload();
    await page.getByRole('status').filter({ hasText: `${ROUTE_COUNT} routes, page 1 of 100` }).waitFor();
    await page.locator('table.routes tbody tr').nth(9).waitFor();
    const firstPageMs = await page.evaluate<number>('performance.now()');
    assert.deepEqual(await rowIds(), Array.from({ length: 10 }, (_, i) => id(i + 1)));
    console.log(`# bulk: the first page of ${ROUTE_COUNT} routes rendered ${firstPageMs.toFixed(0)} ms after navigation start (reload, session kept)`);

    const apiRequests: string[] = [];
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname.startsWith('/api/')) apiRequests.push(`${req.method()} ${url.pathname}${url.search}`);
    });
    const pageChange = async (link: string, expectedPage: number): Promise<number> => {
      const before = apiRequests.length;
      const started = Date.now();
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('status').filter({ hasText: `page ${expectedPage} of 100` }).waitFor();
      const elapsed = Date.now() - started;
      assert.deepEqual(apiRequests.slice(before), [`GET /api/routes?limit=10&offset=${(expectedPage - 1) * 10}`], `one request for page ${expectedPage}`);
      return elapsed;
    };
    const next = await pageChange('Next', 2);
    const direct = await pageChange('Page 100', 100);
    assert.deepEqual(await rowIds(), Array.from({ length: 10 }, (_, i) => id(991 + i)));
    const previous = await pageChange('Previous', 99);
    console.log(`# bulk: page changes took ${next}, ${direct} and ${previous} ms (one API request each)`);
    assert.deepEqual(await inspectPage(page, 'bulk-routes-page-99'), [], 'axe-core on the bulk list');
  });

  test('the tag filter narrows the 1,000 routes with one request', async () => {
    await page.getByLabel('Tag').fill('odd');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('status').filter({ hasText: '500 routes, page 1 of 50' }).waitFor();
    assert.deepEqual(await rowIds(), ['b0002', 'b0004', 'b0006', 'b0008', 'b0010', 'b0012', 'b0014', 'b0016', 'b0018', 'b0020']);
    assert.equal(new URL(page.url()).search, '?tag=odd');
  });

  test('no console error and no CSP violation', () => {
    assert.deepEqual(watched.problems, []);
  });
});
