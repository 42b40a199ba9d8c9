import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { request, startGatewayProcess, startTextUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { bearerApi, inspectPage, isExpectedRefusal, launchChromium, signInOnce, watchPage, type PageProblem } from './browser';

/*
 * The Upstreams list and editor in Debian's chromium against their own gateway process (--role all):
 * a proxy.yml upstream listed read-only, an upstream created with two targets (the API's message on
 * the bad target's field first), traffic through a route naming it, an edit of targets and
 * balancing, the route editor keeping the name, and a delete refused while a route names it. The
 * credentials tier allows 5 logins per 15 minutes: this file signs in once.
 */
const ADMIN = { email: 'admin@example.com', password: 'correct horse battery staple' };
const ENV = { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, JWT_SECRET: 'upstreams-browser-secret-0123456789abcdef', API_RATE_LIMIT_ADMIN_MAX: '1000', API_RATE_LIMIT_GENERAL_MAX: '1000' };
const PROXY_FILE = 'version: "1.0.0"\nupstreams:\n  - { name: file-svc, url: "http://127.0.0.1:9" }\nroutes: []\n';

describe('upstreams list and editor in chromium (one gateway process)', () => {
  let gateway: GatewayProcess;
  let a: LoopbackUpstream;
  let b: LoopbackUpstream;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let watched: { problems: PageProblem[] };
  let token = '';

  const api = bearerApi(() => gateway.url, () => token);
  const inspected = async (name: string): Promise<void> => {
    assert.deepEqual(await inspectPage(page, name), [], `axe-core: serious or critical issues on ${name}`);
  };
  const row = (name: string) => page.locator(`tr[data-upstream="${name}"]`);

  before(async () => {
    a = await startTextUpstream('A');
    b = await startTextUpstream('B');
    gateway = await startGatewayProcess({ role: 'all', config: PROXY_FILE, env: ENV, startTimeoutMs: 60_000 });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    watched = watchPage(page);
    token = await signInOnce(page, gateway.url, ADMIN);
  });
  after(async () => {
    await browser?.close();
    await gateway?.stop();
    await a?.close();
    await b?.close();
  });

  test('the list shows the proxy.yml upstream read-only, with its target', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Upstreams' }).click();
    await page.getByRole('heading', { name: 'Upstreams', level: 1 }).waitFor();
    await row('file-svc').waitFor();
    assert.match(await row('file-svc').innerText(), /http:\/\/127\.0\.0\.1:9\s*\(weight 100\)[\s\S]*round-robin[\s\S]*proxy\.yml \(read-only\)/);
    assert.equal(await row('file-svc').getByRole('button').count(), 0, 'no delete for a file upstream');
    assert.equal(await row('file-svc').getByRole('link').count(), 0, 'no edit for a file upstream');
    await inspected('40-upstreams-list');
  });

  test('create with two targets: the API\'s message lands on the bad target; fixed, it is saved and serves a route', async () => {
    await page.getByRole('link', { name: 'New upstream' }).click();
    await page.getByRole('heading', { name: 'New upstream' }).waitFor();
    await page.getByLabel('Name').fill('shop-svc');
    await page.getByLabel('Target 1 URL').fill(a.origin);
    await page.getByRole('button', { name: 'Add target' }).click();
    await page.getByLabel('Target 2 URL').fill('ftp://not-http');
    await page.getByLabel('Target 2 weight').fill('300');
    await page.getByRole('button', { name: 'Create upstream' }).click();
    await page.locator('#target-1-url-error').waitFor();
    assert.match(await page.locator('#target-1-url-error').innerText(), /URL/);
    assert.equal(await page.getByLabel('Target 2 URL').getAttribute('aria-invalid'), 'true');
    await inspected('41-upstream-editor-errors');

    await page.getByLabel('Target 2 URL').fill(b.origin);
    await page.getByRole('button', { name: 'Create upstream' }).click();
    await row('shop-svc').waitFor();
    const stored = await api<{ targets: Array<{ url: string; weight: number }>; source: string }>('GET', 'upstreams/shop-svc');
    assert.deepEqual(stored.data.targets, [{ url: a.origin, weight: 100 }, { url: b.origin, weight: 300 }]);
    assert.equal(stored.data.source, 'api');

    assert.equal((await api('POST', 'routes', { id: 'shop', path: '/shop/*', upstream: 'shop-svc' })).status, 201);
    const deadline = Date.now() + 15_000;
    let answer = '';
    while (Date.now() < deadline && !['A', 'B'].includes(answer)) {
      const res = await request(`${gateway.url}/shop/items`);
      answer = res.status === 200 ? res.text : '';
      if (!['A', 'B'].includes(answer)) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.ok(['A', 'B'].includes(answer), 'the route naming the upstream reaches one of its targets');
  });

  test('edit: remove a target and hash on a header; the route editor keeps naming the upstream', async () => {
    await row('shop-svc').getByRole('link', { name: 'Edit shop-svc' }).click();
    await page.getByRole('heading', { name: 'Edit upstream shop-svc' }).waitFor();
    assert.equal(await page.getByLabel('Target 2 weight').inputValue(), '300');
    await page.getByRole('button', { name: 'Remove target 2' }).click();
    await page.getByLabel('Balancing').selectOption('consistent-hash');
    await page.getByLabel('Hash on').selectOption('header');
    await page.getByLabel('Header name').fill('x-user');
    await inspected('42-upstream-editor-edit');
    await page.getByRole('button', { name: 'Save upstream' }).click();
    await row('shop-svc').waitFor();
    const stored = await api<{ targets: unknown[]; balancing: unknown }>('GET', 'upstreams/shop-svc');
    assert.deepEqual(stored.data.targets, [{ url: a.origin, weight: 100 }]);
    assert.deepEqual(stored.data.balancing, { algorithm: 'consistent-hash', hashOn: 'header', hashKey: 'x-user' });

    // Back to round robin: the hash fields leave the stored upstream too (merge patch with null).
    await row('shop-svc').getByRole('link', { name: 'Edit shop-svc' }).click();
    await page.getByLabel('Balancing').selectOption('round-robin');
    await page.getByRole('button', { name: 'Save upstream' }).click();
    await row('shop-svc').waitFor();
    assert.deepEqual((await api<{ balancing: unknown }>('GET', 'upstreams/shop-svc')).data.balancing, { algorithm: 'round-robin' });

    await page.goto(`${gateway.url}/admin/routes/shop/edit`);
    await page.locator('#field-upstream').waitFor();
    assert.equal(await page.locator('#field-upstream').inputValue(), 'shop-svc');
    await page.getByRole('button', { name: 'Save route' }).click();
    await page.getByRole('heading', { name: 'Route /shop/*' }).waitFor();
    assert.equal((await api<{ upstreamName?: string }>('GET', 'routes/shop')).data.upstreamName, 'shop-svc', 'saved untouched, the route still names the upstream');
  });

  test('delete: refused with the API\'s message while a route names it; once free, it is gone', async () => {
    await page.goto(`${gateway.url}/admin/upstreams`);
    await row('shop-svc').getByRole('button', { name: 'Delete shop-svc' }).click();
    await row('shop-svc').getByRole('button', { name: 'Confirm delete' }).click();
    await row('shop-svc').getByRole('alert').filter({ hasText: /named by 1 route\(s\): shop/ }).waitFor();
    assert.equal((await api('DELETE', 'routes/shop?permanent=true')).status, 204);
    await row('shop-svc').getByRole('button', { name: 'Delete shop-svc' }).click();
    await row('shop-svc').getByRole('button', { name: 'Confirm delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted shop-svc.' }).waitFor();
    await row('shop-svc').waitFor({ state: 'detached' });
    assert.equal((await api('GET', 'upstreams/shop-svc')).status, 404);
    assert.deepEqual(
      watched.problems.filter((p) => !isExpectedRefusal(p, 400) && !isExpectedRefusal(p, 409)),
      [],
    );
  });
});
