import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { EVENTS_CHANNEL, type SignedBus } from '@gateway/events';
import {
  clusterSecrets,
  controlPlaneEnv,
  dataPlaneEnv,
  EMPTY_PROXY_CONFIG,
  request,
  startGatewayProcess,
  startRedisServer,
  startUpstream,
  type GatewayProcess,
  type LoopbackUpstream,
  type RedisServer,
} from '@gateway/testing';
import { signedRedisBus } from '../api/signed-redis-bus';
import { until } from '../api/webhooks-fixtures';
import { inspectPage, launchChromium, watchPage, type PageProblem } from './browser';

/*
 * The runbook, approval, incident and AI settings pages of the admin UI (issue 16) in Debian's
 * chromium against real processes: a control plane, one data plane following it over a private
 * redis-server, a loopback upstream. Events are published on the cluster's signed bus as a detector
 * would, so the real engine asks for approvals and the real grouper opens incidents. Signs in once
 * (the credentials tier allows 5 per 15 minutes) and reuses the cookie session.
 */
const PAGES = [
  { link: 'Runbooks', heading: 'Runbooks', path: '/admin/runbooks' },
  { link: 'Approvals', heading: 'Approvals', path: '/admin/approvals' },
  { link: 'Incidents', heading: 'Incidents', path: '/admin/incidents' },
  { link: 'AI', heading: 'AI settings', path: '/admin/ai-settings' },
] as const;

type Execution = { id: string; status: string; decidedBy: string | null; actions: Array<{ description: string; outcome?: { status: string } }> };
type Incident = { id: string; title: string; status: string; timeline: Array<{ kind: string; text: string; by: string }> };

describe('admin UI runbooks, approvals, incidents and AI settings in chromium (control plane + data plane processes)', () => {
  const secrets = clusterSecrets('ui-runbooks');
  let redis: RedisServer;
  let controlPlane: GatewayProcess;
  let dataPlane: GatewayProcess;
  let upstream: LoopbackUpstream;
  let events: SignedBus;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let watched: { problems: PageProblem[] };
  let token: string;

  const api = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; data: T }> => {
    const res = await request(`${controlPlane.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, data: res.status === 204 ? (undefined as T) : (JSON.parse(res.text) as { data: T }).data };
  };
  const emit = async (type: string, routeId: string, confidence: number): Promise<string> => {
    const id = `evt_${randomUUID()}`;
    const data = { severity: 'CRITICAL', summary: `error rate spike on ${routeId}`, confidence, data: { current_value: 0.4, threshold: 0.05 }, context: { route: routeId } };
    await events.publish(EVENTS_CHANNEL, { id, type, createdAt: new Date().toISOString(), data });
    return id;
  };
  const goTo = async (link: string, heading: string): Promise<void> => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
  };
  /** The control's accessible description: where the page put the API's message for its field. */
  const descriptionOf = async (label: string): Promise<string> => {
    const ids = ((await page.getByLabel(label, { exact: true }).getAttribute('aria-describedby')) ?? '').split(' ').filter((id) => id !== '');
    return (await Promise.all(ids.map(async (id) => (await page.locator(`[id="${id}"]`).textContent()) ?? ''))).join(' ');
  };

  before(async () => {
    redis = await startRedisServer();
    upstream = await startUpstream({ handler: (_req, res) => res.end('ok') });
    controlPlane = await startGatewayProcess({ role: 'control-plane', config: EMPTY_PROXY_CONFIG, env: controlPlaneEnv(secrets, redis.url), startTimeoutMs: 30_000 });
    dataPlane = await startGatewayProcess({ role: 'data-plane', config: EMPTY_PROXY_CONFIG, env: dataPlaneEnv(secrets, redis.url, controlPlane.url), startTimeoutMs: 30_000 });
    events = signedRedisBus(redis.url, secrets.channelPrefix, secrets.clusterToken, 'ui-runbooks-events');

    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    watched = watchPage(page);
    // The one sign-in of this file.
    await page.goto(`${controlPlane.url}/admin/`);
    await page.getByLabel('Email').fill(secrets.admin.email);
    await page.getByLabel('Password').fill(secrets.admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Routes' }).waitFor();
    token = (await context.cookies()).find((c) => c.name === 'gateway_session')?.value ?? '';
    assert.notEqual(token, '', 'the session cookie is set');

    const route = { id: 'uicb', path: '/uicb/*', upstream: upstream.origin, circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 100, timeout: 1000 } };
    assert.equal((await api('POST', '/api/routes', route)).status, 201);
    await until('the data plane serving the route and in the directory', async () => {
      const breaker = await api<{ dataPlanes: unknown[] }>('GET', '/api/routes/uicb/circuit-breaker');
      const served = await request(`${dataPlane.url}/uicb/x`, { timeoutMs: 3000 });
      return breaker.data.dataPlanes.length === 1 && served.status === 200 ? true : undefined;
    });
  });

  after(async () => {
    await browser?.close();
    await events?.close();
    await Promise.all([dataPlane?.stop(), controlPlane?.stop()]);
    await redis?.stop();
    await upstream?.close();
  });

  test('runbooks: a refused field shows at its field; create, disable and enable, delete with confirmation', async () => {
    await goTo('Runbooks', 'Runbooks');
    await page.getByRole('link', { name: 'New runbook' }).click();
    await page.getByRole('heading', { level: 1, name: 'New runbook' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('hold uicb on approval');
    await page.getByLabel('Event type', { exact: true }).fill('TEST_UI_APPROVAL');
    await page.getByLabel('Route', { exact: true }).fill('uicb');
    await page.getByLabel('Actions (JSON)').fill(JSON.stringify([{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 120 }]));
    await page.getByLabel('Max executions per hour').fill('500');
    await page.getByRole('button', { name: 'Create runbook' }).click();
    await page.locator('#runbook-max-per-hour-error').waitFor();
    assert.match(await descriptionOf('Max executions per hour'), /safety\.maxExecutionsPerHour must be an integer from 1 to 100/);
    assert.equal(await page.getByLabel('Max executions per hour').getAttribute('aria-invalid'), 'true');
    assert.equal((await api<unknown[]>('GET', '/api/runbooks')).data.length, 0, 'nothing was created');
    assert.deepEqual(await inspectPage(page, 'runbooks-01-field-error'), []);

    await page.getByLabel('Max executions per hour').fill('3');
    await page.getByRole('button', { name: 'Create runbook' }).click();
    await page.getByRole('heading', { level: 1, name: 'Runbook hold uicb on approval' }).waitFor();
    const stored = (await api<Array<{ id: string; name: string; enabled: boolean; trigger: { conditions: Record<string, unknown> }; safety: Record<string, unknown> }>>('GET', '/api/runbooks')).data;
    assert.equal(stored.length, 1);
    assert.deepEqual([stored[0]?.name, stored[0]?.enabled, stored[0]?.trigger.conditions, stored[0]?.safety['requiresApproval'], stored[0]?.safety['maxExecutionsPerHour']], ['hold uicb on approval', true, { routeId: 'uicb' }, true, 3]);
    assert.equal(new URL(page.url()).pathname, `/admin/runbooks/${stored[0]?.id}`);

    // A second one to disable, enable and delete from the list.
    assert.equal((await api('POST', '/api/runbooks', { name: 'spare', trigger: { eventType: 'TEST_UI_SPARE' }, actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 60 }] })).status, 201);
    await goTo('Runbooks', 'Runbooks');
    const spare = page.locator('tr[data-runbook="spare"]');
    await spare.getByRole('button', { name: 'Disable spare' }).click();
    await page.getByRole('status').filter({ hasText: 'spare disabled.' }).waitFor();
    const spareId = (await api<Array<{ id: string; name: string; enabled: boolean }>>('GET', '/api/runbooks')).data.find((r) => r.name === 'spare');
    assert.equal(spareId?.enabled, false);
    await spare.getByRole('button', { name: 'Enable spare' }).click();
    await page.getByRole('status').filter({ hasText: 'spare enabled.' }).waitFor();
    await spare.getByRole('button', { name: 'Delete spare' }).click();
    assert.equal((await api<unknown[]>('GET', '/api/runbooks')).data.length, 2, 'the first press only asks');
    await spare.getByRole('button', { name: 'Confirm delete' }).click();
    await spare.waitFor({ state: 'detached' });
    assert.equal((await api('GET', `/api/runbooks/${spareId?.id}`)).status, 404);
    assert.deepEqual(await inspectPage(page, 'runbooks-02-list'), []);
  });

  test('approvals: an event needing approval is shown, approved in the UI (with confirmation), and its result shows on the runbook', async () => {
    const eventId = await emit('TEST_UI_APPROVAL', 'uicb', 0.6);
    const pending = await until('the pending execution', async () => (await api<Execution[]>('GET', `/api/runbook-executions?eventId=${eventId}`)).data.find((e) => e.status === 'pending_approval'));
    await goTo('Approvals', 'Approvals');
    const row = page.locator(`tr[data-execution="${pending.id}"]`);
    await row.waitFor();
    assert.match(await row.textContent() ?? '', /TEST_UI_APPROVAL/);
    assert.deepEqual(await inspectPage(page, 'approvals-01-pending'), []);
    await row.getByRole('button', { name: 'Approve hold uicb on approval' }).click();
    assert.equal((await api<Execution>('GET', `/api/runbook-executions/${pending.id}`)).data.status, 'pending_approval', 'the first press only asks');
    await row.getByRole('button', { name: 'Confirm approve' }).click();
    await page.locator('table.approvals-decided').locator(`tr[data-execution="${pending.id}"]`).waitFor();
    const decided = (await api<Execution>('GET', `/api/runbook-executions/${pending.id}`)).data;
    assert.equal(decided.decidedBy, secrets.admin.email);
    assert.notEqual(decided.status, 'pending_approval');
    const decidedRow = page.locator('table.approvals-decided').locator(`tr[data-execution="${pending.id}"]`);
    assert.match((await decidedRow.textContent()) ?? '', new RegExp(secrets.admin.email.replace('.', '\\.')));
    assert.equal((await api<{ state: string }>('GET', '/api/routes/uicb/circuit-breaker')).data.state, 'OPEN', 'the approved action ran');
    assert.deepEqual(await inspectPage(page, 'approvals-02-decided'), []);

    // The runbook's page lists the execution with each action's result.
    await decidedRow.getByRole('link', { name: 'hold uicb on approval' }).click();
    await page.getByRole('heading', { level: 1, name: 'Runbook hold uicb on approval' }).waitFor();
    const execution = page.locator(`table.executions tr[data-execution="${pending.id}"]`);
    await execution.waitFor();
    const action = decided.actions[0];
    assert.ok(action?.outcome !== undefined, 'the API recorded the action outcome');
    const text = (await execution.textContent()) ?? '';
    assert.ok(text.includes(action.description), `the action's description in ${text}`);
    assert.ok(text.includes(`— ${action.outcome.status}`), `the action's outcome in ${text}`);
    assert.deepEqual(await inspectPage(page, 'runbooks-03-executions'), []);
  });

  test('approvals: reject asks for confirmation, then the execution shows as rejected by the admin and nothing ran', async () => {
    const eventId = await emit('TEST_UI_APPROVAL', 'uicb', 0.7);
    const pending = await until('the pending execution', async () => (await api<Execution[]>('GET', `/api/runbook-executions?eventId=${eventId}`)).data.find((e) => e.status === 'pending_approval'));
    await goTo('Approvals', 'Approvals');
    const row = page.locator(`table.approvals-pending tr[data-execution="${pending.id}"]`);
    await row.getByRole('button', { name: 'Reject hold uicb on approval' }).click();
    await row.getByRole('button', { name: 'Cancel' }).click();
    await row.getByRole('button', { name: 'Reject hold uicb on approval' }).click();
    assert.equal((await api<Execution>('GET', `/api/runbook-executions/${pending.id}`)).data.status, 'pending_approval', 'neither press acted');
    await row.getByRole('button', { name: 'Confirm reject' }).click();
    const decidedRow = page.locator(`table.approvals-decided tr[data-execution="${pending.id}"]`);
    await decidedRow.waitFor();
    const rejected = (await api<Execution>('GET', `/api/runbook-executions/${pending.id}`)).data;
    assert.deepEqual([rejected.status, rejected.decidedBy], ['rejected', secrets.admin.email]);
    assert.match((await decidedRow.textContent()) ?? '', /Rejected/);
    assert.equal(rejected.actions.some((a) => a.outcome !== undefined), false, 'no action ran');
  });

  test('incidents: a critical event opens one; acknowledge, a note and an analysis by the built-in analyzer', async () => {
    await emit('ERROR_RATE_SPIKE', 'uiinc', 0.9);
    const opened = await until('the incident', async () => (await api<Incident[]>('GET', '/api/ai-incidents')).data.find((i) => i.title.includes('uiinc')));
    await goTo('Incidents', 'Incidents');
    const row = page.locator(`tr[data-incident="${opened.title}"]`);
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Open.*CRITICAL.*uiinc/);
    assert.deepEqual(await inspectPage(page, 'incidents-01-list'), []);
    await row.getByRole('link', { name: opened.title }).click();
    await page.getByRole('heading', { level: 1, name: `Incident ${opened.title}` }).waitFor();

    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await page.getByTestId('incident-status').filter({ hasText: 'Acknowledged' }).waitFor();
    await page.getByLabel('Note', { exact: true }).fill('Upstream team paged.');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.locator('ol.timeline li[data-kind="note"]').filter({ hasText: 'Upstream team paged.' }).waitFor();

    await page.getByRole('button', { name: 'Analyse' }).click();
    await page.getByTestId('answered-by').filter({ hasText: 'Answered by the built-in analyzer' }).waitFor();
    const causes = page.locator('ol.causes > li');
    assert.ok((await causes.count()) >= 1, 'at least one likely cause');
    assert.match((await causes.first().textContent()) ?? '', /confidence \d+%/);
    await page.locator('ol.timeline li[data-kind="analysis"]').first().waitFor();

    const after = (await api<Incident>('GET', `/api/ai-incidents/${opened.id}`)).data;
    assert.equal(after.status, 'acknowledged');
    assert.ok(after.timeline.some((e) => e.kind === 'note' && e.text === 'Upstream team paged.' && e.by === secrets.admin.email));
    assert.ok(after.timeline.some((e) => e.kind === 'analysis' && e.by === 'built-in analyzer'));
    assert.deepEqual(await inspectPage(page, 'incidents-02-detail'), []);
  });

  test('AI settings: a refused value at its field; the API key saved write-only (masked), then removed', async () => {
    await goTo('AI', 'AI settings');
    await page.getByTestId('api-key-state').filter({ hasText: 'API key: none' }).waitFor();
    await page.getByLabel('Timeout (ms)').fill('5');
    await page.getByRole('button', { name: 'Save provider settings' }).click();
    await page.locator('#ai-timeoutMs-error').waitFor();
    assert.match(await descriptionOf('Timeout (ms)'), /timeoutMs/);

    const secretKey = `sk-ui-${randomUUID()}`;
    await page.getByLabel('Timeout (ms)').fill('15000');
    await page.getByLabel('Model').fill('gpt-ui-test');
    await page.getByLabel('API key').fill(secretKey);
    await page.getByRole('button', { name: 'Save provider settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Provider settings saved.' }).waitFor();
    await page.getByTestId('api-key-state').filter({ hasText: 'API key: stored (hidden)' }).waitFor();
    assert.equal(await page.getByLabel('API key').inputValue(), '', 'the key box is empty after saving');
    assert.equal((await page.content()).includes(secretKey), false, 'the key is nowhere in the page');
    const stored = (await api<{ apiKey: string | null; model: string; timeoutMs: number }>('GET', '/api/settings/ai')).data;
    assert.deepEqual([stored.apiKey, stored.model, stored.timeoutMs], ['********', 'gpt-ui-test', 15000]);

    await page.getByLabel('Temperature').fill('0.7');
    await page.getByRole('button', { name: 'Save assistant settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Assistant settings saved.' }).waitFor();
    assert.equal((await api<{ temperature: number }>('GET', '/api/settings/assistant')).data.temperature, 0.7);

    // A reload shows the key as stored, never its value; saving another field keeps it.
    await page.reload();
    await page.getByTestId('api-key-state').filter({ hasText: 'API key: stored (hidden)' }).waitFor();
    assert.deepEqual(await inspectPage(page, 'ai-settings-01-masked'), []);
    await page.getByLabel('Max tokens per answer').fill('1200');
    await page.getByRole('button', { name: 'Save provider settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Provider settings saved.' }).waitFor();
    assert.deepEqual(Object.values(pick((await api<Record<string, unknown>>('GET', '/api/settings/ai')).data, 'apiKey', 'maxTokens')), ['********', 1200]);

    await page.getByLabel('Remove the stored key').check();
    await page.getByRole('button', { name: 'Save provider settings' }).click();
    await page.getByTestId('api-key-state').filter({ hasText: 'API key: none' }).waitFor();
    assert.equal((await api<{ apiKey: string | null }>('GET', '/api/settings/ai')).data.apiKey, null);
  });

  test('runbooks: 20 a page; the page links reach the rest, and a change on page 2 asks for that page again', async () => {
    const listed = async (): Promise<string[]> => (await api<Array<{ name: string }>>('GET', '/api/runbooks?limit=100')).data.map((r) => r.name);
    // Disabled, on an event type nothing raises: they only fill the list.
    for (let n = (await listed()).length; n < 23; n += 1) {
      const body = { name: `paged ${String(n).padStart(2, '0')}`, enabled: false, trigger: { eventType: 'TEST_UI_PAGED' }, actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 60 }] };
      assert.equal((await api('POST', '/api/runbooks', body)).status, 201);
    }
    const all = await listed();
    assert.equal(all.length, 23);
    const rows = page.locator('tr[data-runbook]');
    // One read of every row at once: reading row by row races a re-render (a row read by index that
    // is gone by then waits for it forever).
    const names = (): Promise<string[]> => rows.evaluateAll((found) => found.map((row) => row.getAttribute('data-runbook') ?? ''));

    await goTo('Runbooks', 'Runbooks');
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    assert.deepEqual(await names(), all.slice(0, 20), 'page 1: the first 20 in the API order');
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Next' }).click();
    await page.locator(`tr[data-runbook="${all[20]}"]`).waitFor();
    assert.equal(new URL(page.url()).search, '?page=2');
    assert.deepEqual(await names(), all.slice(20), 'page 2: the last 3');

    const last = page.locator(`tr[data-runbook="${all[22]}"]`);
    await last.getByRole('button', { name: `Delete ${all[22]}` }).click();
    await last.getByRole('button', { name: 'Confirm delete' }).click();
    await page.getByRole('status').filter({ hasText: `${all[22]} deleted.` }).waitFor();
    await last.waitFor({ state: 'detached' });
    // The table is gone while page 2 loads again; it is back when a row that stays is.
    await page.locator(`tr[data-runbook="${all[21]}"]`).waitFor();
    assert.deepEqual(await names(), all.slice(20, 22), 'page 2 asked again after the delete');
    assert.deepEqual(await listed(), all.slice(0, 22));
    await page.getByRole('link', { name: 'Page 1' }).click();
    await page.locator(`tr[data-runbook="${all[0]}"]`).waitFor();
    assert.deepEqual(await names(), all.slice(0, 20));
    assert.deepEqual(await inspectPage(page, 'runbooks-03-paged'), []);
  });

  test('every page fits 390 px and 1280x800 without horizontal scrolling, with no serious accessibility issue', async () => {
    // The nav pages, and the detail pages of the runbook and the incident the tests made.
    const runbook = (await api<Array<{ id: string; name: string }>>('GET', '/api/runbooks')).data[0];
    const incident = (await api<Incident[]>('GET', '/api/ai-incidents')).data.find((i) => i.title.includes('uiinc'));
    assert.ok(runbook !== undefined && incident !== undefined);
    const targets: Array<{ heading: string; path: string }> = [
      ...PAGES,
      { heading: 'New runbook', path: '/admin/runbooks/new' },
      { heading: `Runbook ${runbook.name}`, path: `/admin/runbooks/${runbook.id}` },
      { heading: `Incident ${incident.title}`, path: `/admin/incidents/${incident.id}` },
    ];
    for (const width of [1280, 390]) {
      const sized = await browser.newContext({ viewport: { width, height: width === 390 ? 844 : 800 }, storageState: await context.storageState() });
      try {
        const tab = await sized.newPage();
        const tabWatch = watchPage(tab);
        for (const [index, target] of targets.entries()) {
          await tab.goto(`${controlPlane.url}${target.path}`);
          await tab.getByRole('heading', { level: 1, name: target.heading, exact: true }).waitFor();
          await tab.locator('table.grid, form, ol.timeline').first().waitFor();
          assert.equal(await tab.evaluate<boolean>(`document.documentElement.scrollWidth <= ${width}`), true, `${target.path} at ${width} px: no horizontal scrolling`);
          const name = `runbooks-ui-${index}-${target.path.split('/')[2]}-${width}px`;
          assert.deepEqual(await inspectPage(tab, name), [], `axe-core on ${name}`);
        }
        assert.deepEqual(tabWatch.problems, [], `no console error at ${width} px`);
      } finally {
        await sized.close();
      }
    }
  });

  test('no console error and no CSP violation on any page', () => {
    // The only lines allowed: the browser's own reports of the 400s the tests provoked on purpose.
    const provoked = (p: PageProblem): boolean => /\/api\/(runbooks|settings\/ai)$/.test(p.url) && /status of 400 \(Bad Request\)/.test(p.text);
    assert.equal(watched.problems.filter(provoked).length, 2);
    assert.deepEqual(watched.problems.filter((p) => !provoked(p)), []);
  });
});

function pick(record: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, record[key]]));
}
