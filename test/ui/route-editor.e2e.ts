import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { parse as parseYaml } from 'yaml';
import { validateProxyConfig } from '@gateway/route-model';
import { request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { bearerApi, inspectPage, isExpectedRefusal, launchChromium, watchPage, type PageProblem } from './browser';

/*
 * The route editor, detail page and trash in Debian's chromium against their own gateway process
 * (--role all) and a real upstream: create a route and see traffic flow, field errors from the
 * browser's validation and from the API on their field, edit, a no-op edit that keeps every field,
 * toggle, clone, delete and restore (traffic stops and flows again), permanent delete, and the
 * breaker's Trip and Reset. The credentials tier allows 5 logins per 15 minutes: this file signs in
 * once and keeps that browser session; its own API calls use the session's token as a Bearer.
 */
const ADMIN = { email: 'admin@example.com', password: 'correct horse battery staple' };
/**
 * The admin tier (60 a minute) is raised: this file makes in one minute the calls an admin makes
 * in several (each detail page view is 4 of them, plus the test's own checks). The credentials
 * tier stays at its default: one sign-in. admin-ui.e2e.ts browses with every default limit.
 */
const ENV = {
  ADMIN_EMAIL: ADMIN.email,
  ADMIN_PASSWORD: ADMIN.password,
  JWT_SECRET: 'route-editor-browser-secret-0123456789abcd',
  RICH_JWT_SECRET: 'rich-route-secret-0123456789abcdef',
  API_RATE_LIMIT_ADMIN_MAX: '1000',
  API_RATE_LIMIT_GENERAL_MAX: '1000',
};
const PROXY_FILE = 'version: "1.0.0"\nroutes:\n  - { id: from-file, path: /from-file/*, upstream: "http://127.0.0.1:9" }\n';

describe('route editor, detail and trash in chromium (one gateway process)', () => {
  let gateway: GatewayProcess;
  let upstream: LoopbackUpstream;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let watched: { problems: PageProblem[] };
  let token = '';

  const api = bearerApi(() => gateway.url, () => token);

  /** Proxied traffic reaches the status once the route change has propagated (bounded wait). */
  const trafficStatus = async (path: string, expected: number): Promise<void> => {
    const deadline = Date.now() + 15_000;
    let last = 0;
    while (Date.now() < deadline) {
      last = (await request(`${gateway.url}${path}`)).status;
      if (last === expected) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.fail(`GET ${path} answered ${last}, expected ${expected}`);
  };

  const inspected = async (name: string): Promise<void> => {
    assert.deepEqual(await inspectPage(page, name), [], `axe-core: serious or critical issues on ${name}`);
  };

  before(async () => {
    upstream = await startUpstream();
    gateway = await startGatewayProcess({ role: 'all', config: PROXY_FILE, env: ENV });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    watched = watchPage(page);
    // The one sign-in of this file.
    await page.goto(`${gateway.url}/admin/`);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Routes' }).waitFor();
    token = (await context.cookies()).find((c) => c.name === 'gateway_session')?.value ?? '';
    assert.notEqual(token, '');
  });
  after(async () => {
    await browser?.close();
    await gateway?.stop();
    await upstream?.close();
  });

  test('create a route in the editor (schema defaults shown) and traffic flows through it', async () => {
    await page.getByRole('link', { name: 'New route' }).click();
    await page.getByRole('heading', { name: 'New route' }).waitFor();
    // Spec 2.1's defaults: every method, and help texts with the schema's bounds and defaults.
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']) assert.equal(await page.locator(`#field-methods-${method}`).isChecked(), true, method);
    assert.equal(await page.locator('#field-priority-help').innerText(), 'Higher matches first (decision 14). From 0 to 1000. Default: 50.');
    await page.locator('#field-path').fill('/shop/*');
    await page.locator('#field-upstream').fill(upstream.origin);
    await page.getByLabel('Configure rate limit').check();
    assert.equal(await page.locator('#field-rateLimit-strategy').inputValue(), 'token-bucket');
    await page.locator('#field-rateLimit-max').fill('10000');
    await page.getByLabel('Configure health check').check();
    assert.equal(await page.locator('#field-healthCheck-url').getAttribute('placeholder'), `${upstream.origin}/health`);
    await page.getByLabel('Configure circuit breaker').check();
    await page.getByLabel('Configure auth').check();
    // OAuth 2.0 and custom are listed as not available.
    assert.equal(await page.locator('#field-auth-type option[value="oauth2"]').isDisabled(), true);
    assert.equal(await page.locator('#field-auth-type option[value="custom"]').isDisabled(), true);
    await page.getByLabel('Configure auth').uncheck();
    await inspected('10-route-editor-new');
    await page.getByRole('button', { name: 'Create route' }).click();
    await page.getByRole('heading', { name: 'Route /shop/*' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').at(-1) ?? '';
    const stored = await api<Record<string, unknown>>('GET', `routes/${id}`);
    assert.equal(stored.status, 200);
    assert.deepEqual((stored.data['rateLimit'] as Record<string, unknown>)['strategy'], 'token-bucket');
    assert.equal((stored.data['rateLimit'] as Record<string, unknown>)['max'], 10000);
    assert.equal(stored.data['methods'], undefined, 'all methods: the field is left out');
    await trafficStatus('/shop/items', 200);
    assert.ok(upstream.requests.some((r) => r.url === '/items'));
    await page.getByTestId('proxy-yml').filter({ hasText: 'path: "/shop/*"' }).waitFor();
    await inspected('11-route-detail');

    // The test console sends one request to the upstream through POST /api/routes/:id/test.
    const before = upstream.requests.length;
    await page.getByLabel('Path', { exact: true }).fill('/shop/probe?x=1');
    await page.getByRole('button', { name: 'Send test request' }).click();
    await page.getByTestId('test-result').filter({ hasText: `200 from ${upstream.origin}/probe?x=1` }).waitFor();
    assert.equal(upstream.requests.length, before + 1);

    // Rate-limit usage counts the traffic sent above.
    await page.getByRole('button', { name: 'Refresh usage' }).click();
    await page.locator('section[aria-labelledby="rate-limit-heading"] dd').first().filter({ hasText: /^[1-9]\d*$/ }).waitFor();
  });

  test('field errors: the browser validates with the route model, the API\'s land on their field', async () => {
    const posts: string[] = [];
    page.on('request', (req) => {
      if (req.method() === 'POST' && new URL(req.url()).pathname === '/api/routes') posts.push(req.url());
    });
    await page.goto(`${gateway.url}/admin/new-route`);
    await page.locator('#field-path').fill('/shop/*');
    await page.locator('#field-upstream').fill('not a url');
    await page.getByRole('button', { name: 'Create route' }).click();
    await page.locator('#field-upstream-error').waitFor();
    assert.equal(await page.locator('#field-upstream-error').innerText(), 'Invalid URL');
    assert.equal(await page.locator('#field-upstream').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(posts, [], 'refused in the browser: nothing sent');
    await inspected('12-route-editor-errors');

    // Only the API knows another enabled route has the path: 409 PATH_EXISTS on `path`.
    await page.locator('#field-upstream').fill(upstream.origin);
    await page.getByRole('button', { name: 'Create route' }).click();
    await page.locator('#field-path-error').filter({ hasText: 'Path already exists' }).waitFor();
    assert.equal(posts.length, 1);
    page.removeAllListeners('request');

    // Save as draft: stored disabled, so no traffic reaches it.
    await page.locator('#field-path').fill('/draft/*');
    await page.getByRole('button', { name: 'Save as draft (disabled)' }).click();
    await page.getByRole('heading', { name: 'Route /draft/*' }).waitFor();
    await page.getByTestId('route-enabled').filter({ hasText: 'No' }).waitFor();
    assert.equal((await request(`${gateway.url}/draft/x`)).status, 404);
    assert.deepEqual(
      watched.problems.filter((p) => !isExpectedRefusal(p, 409)),
      [],
    );
    watched.problems.length = 0;
  });

  test('editing a route with every block and saving without a change keeps every field', async () => {
    const rich = {
      id: 'rich',
      path: '/rich/*',
      upstream: upstream.origin,
      methods: ['GET', 'POST'],
      description: 'Every field set',
      priority: 70,
      tags: ['a', 'b'],
      stripPath: false,
      timeout: { connect: 1000, request: 3000, keepAlive: 5000 },
      rateLimit: { enabled: true, max: 50, windowMs: 1000, strategy: 'sliding-window', scope: 'ip', keyExpression: 'header:x-user', skipSuccessfulRequests: true, skipFailedRequests: false, response: { status: 429, message: 'Slow down', headers: { 'Retry-After': '5' } } },
      headers: { request: { set: { 'X-Request-Id': '${requestId}' }, remove: ['X-Debug'] }, response: { set: { 'X-Served-By': 'gateway' } } },
      healthCheck: { enabled: true, url: `${upstream.origin}/health`, interval: 10000, timeout: 2000, unhealthyThreshold: 3, healthyThreshold: 2, expectedStatus: 200, expectedBody: 'ok' },
      retry: { enabled: true, attempts: 2, backoff: 'exponential', initialDelay: 50, maxDelay: 500, multiplier: 3, jitter: false, methods: ['POST'] },
      circuitBreaker: { enabled: true, threshold: 0.005, timeout: 10000, resetTimeout: 60000, volumeThreshold: 5, errorStatuses: [500, 503], fallback: { status: 503, body: 'down', headers: { 'X-Fallback': '1' } } },
      transform: { request: { query: { source: 'gateway' }, headers: { add: { 'X-Added': 'yes' }, remove: ['X-Drop'] } }, response: { body: { exclude: ['secret'] } } },
      cache: { enabled: true, ttl: 1000, varyBy: ['method', 'path'], cacheableStatuses: [200], cacheAuthorized: false },
      auth: { enabled: true, type: 'jwt', jwt: { secretEnv: 'RICH_JWT_SECRET', algorithms: ['HS256', 'RS256'], validateIssuer: true, issuer: 'me', validateExpiration: true } },
      ipRestriction: { enabled: true, allow: ['127.0.0.1', '10.0.0.0/8'], deny: ['10.0.0.5'] },
      cors: { enabled: true, origins: ['https://app.example.com'], methods: ['GET'], headers: ['X-Custom'], exposedHeaders: ['X-Trace'], credentials: true, maxAge: 600 },
    };
    const created = await api<Record<string, unknown>>('POST', 'routes', rich);
    assert.equal(created.status, 201, JSON.stringify(created.data));
    await page.goto(`${gateway.url}/admin/routes/rich/edit`);
    await page.getByRole('heading', { name: 'Edit route /rich/*' }).waitFor();
    assert.equal(await page.locator('#field-rateLimit-keyExpression').inputValue(), 'header:x-user');
    assert.equal(await page.locator('#field-headers-request-set').inputValue(), 'X-Request-Id: ${requestId}');
    // The header variables are listed once in the help (spec 2.1's UI lists them).
    const headerHelp = await page.locator('#field-headers-request-set-help').innerText();
    for (const variable of ['requestId', 'timestamp', 'clientIp', 'route', 'method', 'responseTime']) assert.equal(headerHelp.split(`\${${variable}}`).length, 2, `${variable} in: ${headerHelp}`);
    assert.equal(await page.locator('#field-circuitBreaker-errorStatuses').inputValue(), '500, 503');
    assert.equal(await page.locator('#field-ipRestriction-allow').inputValue(), '127.0.0.1, 10.0.0.0/8');
    assert.equal(await page.locator('#field-cors-methods-GET').isChecked(), true);
    assert.equal(await page.locator('#field-cors-methods-POST').isChecked(), false);
    // Stored as 0.5 (percent); shown and sent back as the fraction decision 7 reads as 0.5 %.
    assert.equal((created.data['circuitBreaker'] as Record<string, unknown>)['threshold'], 0.5);
    assert.equal(await page.locator('#field-circuitBreaker-threshold').inputValue(), '0.005');
    await inspected('13-route-editor-edit-all-fields');
    await page.getByRole('button', { name: 'Save route' }).click();
    await page.getByRole('heading', { name: 'Route /rich/*' }).waitFor();
    const after = await api<Record<string, unknown>>('GET', 'routes/rich');

    // The proxy.yml form is a valid proxy.yml entry that gives the same route back.
    const yml = await page.getByTestId('proxy-yml').innerText();
    const fromFile = validateProxyConfig({ version: '1.0.0', ...(parseYaml(yml) as object) });
    assert.ok(fromFile.ok, JSON.stringify(fromFile.ok ? [] : fromFile.errors));
    const { source: _s, createdAt: _c, updatedAt: _u, ...copied } = fromFile.value.routes[0] as unknown as Record<string, unknown>;
    const { source: _s2, createdAt: _c2, updatedAt: _u2, ...stored } = after.data;
    assert.deepEqual(copied, stored);

    // The route caches: its detail page purges on every data plane.
    await page.getByRole('button', { name: 'Purge cache' }).click();
    await page.getByRole('status').filter({ hasText: 'cached responses were purged' }).waitFor();
    const { updatedAt: _before, ...wasStored } = created.data;
    const { updatedAt: _after, ...isStored } = after.data;
    assert.deepEqual(isStored, wasStored);

    // A real edit changes only what was edited.
    await page.goto(`${gateway.url}/admin/routes/rich/edit`);
    await page.locator('#field-description').fill('Edited in the browser');
    await page.getByRole('button', { name: 'Save route' }).click();
    await page.getByRole('heading', { name: 'Route /rich/*' }).waitFor();
    const edited = await api<Record<string, unknown>>('GET', 'routes/rich');
    assert.deepEqual({ ...edited.data, updatedAt: undefined }, { ...after.data, description: 'Edited in the browser', updatedAt: undefined });
  });

  test('the editor fits a 390-pixel-wide screen (no horizontal scrolling)', async () => {
    const narrow = await context.newPage();
    const narrowWatch = watchPage(narrow);
    await narrow.setViewportSize({ width: 390, height: 844 });
    await narrow.goto(`${gateway.url}/admin/routes/rich/edit`);
    await narrow.getByRole('heading', { name: 'Edit route /rich/*' }).waitFor();
    const widths = await narrow.evaluate<{ scroll: number; client: number }>('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })');
    assert.ok(widths.scroll <= widths.client, `page is ${widths.scroll} px wide in a ${widths.client} px window`);
    assert.deepEqual(await inspectPage(narrow, '16-route-editor-390px'), []);
    assert.deepEqual(narrowWatch.problems, []);
    await narrow.close();
  });

  test('a proxy.yml route is read-only with the reason', async () => {
    await page.goto(`${gateway.url}/admin/routes/from-file`);
    await page.getByText('Read-only: this route is declared in proxy.yml').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Clone' }).count(), 0);
    await page.goto(`${gateway.url}/admin/routes/from-file/edit`);
    await page.getByText('it changes only through the file').waitFor();
    assert.equal(await page.locator('#field-path').isDisabled(), true);
    assert.equal(await page.getByRole('button', { name: 'Save route' }).count(), 0);
  });

  test('toggle stops and restarts traffic; clone makes a disabled copy', async () => {
    const id = (await api<Array<{ id: string; path: string }>>('GET', 'routes?search=shop')).data.find((r) => r.path === '/shop/*')?.id ?? '';
    await page.goto(`${gateway.url}/admin/routes/${id}`);
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByTestId('route-enabled').filter({ hasText: 'No' }).waitFor();
    await trafficStatus('/shop/items', 404);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByTestId('route-enabled').filter({ hasText: 'Yes' }).waitFor();
    await trafficStatus('/shop/items', 200);

    await page.getByRole('button', { name: 'Clone' }).click();
    await page.waitForURL(new RegExp(`/admin/routes/${id}-copy$`));
    await page.getByTestId('route-enabled').filter({ hasText: 'No' }).waitFor();
    const copy = await api<Record<string, unknown>>('GET', `routes/${id}-copy`);
    assert.equal(copy.data['enabled'], false);
    assert.equal(copy.data['path'], '/shop/*');
  });

  test('delete with confirmation stops traffic; the trash shows days left, restores, and deletes for good', async () => {
    const id = (await api<Array<{ id: string; path: string; enabled: boolean }>>('GET', 'routes?search=shop')).data.find((r) => r.path === '/shop/*' && r.enabled)?.id ?? '';
    await page.goto(`${gateway.url}/admin/routes/${id}`);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('group', { name: 'Confirm deletion' }).waitFor();
    await page.getByRole('button', { name: 'Delete route' }).click();
    await page.getByRole('heading', { name: 'Deleted routes' }).waitFor();
    const row = page.locator('table.routes tbody tr').filter({ hasText: upstream.origin }).filter({ has: page.getByRole('button', { name: 'Restore /shop/*' }) });
    await row.first().waitFor();
    assert.match(await row.first().innerText(), /\b30\b/);
    await trafficStatus('/shop/items', 404);
    await inspected('14-deleted-routes');

    await page.getByRole('button', { name: 'Restore /shop/*' }).click();
    await page.getByRole('status').filter({ hasText: '/shop/* was restored.' }).waitFor();
    await trafficStatus('/shop/items', 200);

    // The disabled clone: soft delete through the API, then for good from the trash.
    assert.equal((await api('DELETE', `routes/${id}-copy`)).status, 204);
    await page.goto(`${gateway.url}/admin/deleted-routes`);
    await page.getByRole('button', { name: 'Delete permanently: /shop/*' }).click();
    await page.getByRole('button', { name: 'Delete for good: /shop/*' }).click();
    await page.getByRole('status').filter({ hasText: 'was deleted for good' }).waitFor();
    assert.equal((await api('GET', `routes?deleted=true`)).status, 200);
    assert.equal((await api<unknown[]>('GET', 'routes?deleted=true')).data.length, 0);
  });

  test('Trip and Reset change the breaker state shown, and traffic follows', async () => {
    const id = (await api<Array<{ id: string; path: string }>>('GET', 'routes?search=shop')).data.find((r) => r.path === '/shop/*')?.id ?? '';
    // A second tab on the same route: it learns of the trip from the telemetry stream, not a reload.
    const watcher = await context.newPage();
    const watcherProblems = watchPage(watcher);
    await watcher.goto(`${gateway.url}/admin/routes/${id}`);
    await watcher.getByTestId('breaker-state').filter({ hasText: 'CLOSED' }).waitFor();
    await page.goto(`${gateway.url}/admin/routes/${id}`);
    await page.getByRole('button', { name: 'Trip breaker' }).click();
    await page
      .getByTestId('breaker-state')
      .filter({ hasText: 'OPEN' })
      .waitFor({ timeout: 10_000 })
      .catch(async (error: unknown) => assert.fail(`${String(error)}\n${await page.locator('main').innerText()}`));
    await trafficStatus('/shop/items', 503);
    await watcher.getByTestId('breaker-state').filter({ hasText: 'OPEN' }).waitFor({ timeout: 10_000 });
    assert.deepEqual(watcherProblems.problems, []);
    await watcher.close();
    await inspected('15-route-detail-breaker-open');
    await page.getByRole('button', { name: 'Reset breaker' }).click();
    await page.getByTestId('breaker-state').filter({ hasText: 'CLOSED' }).waitFor();
    await trafficStatus('/shop/items', 200);
    assert.deepEqual(watched.problems, []);
  });
});
