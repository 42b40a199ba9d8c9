import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENTS_CHANNEL, type SignedBus } from '@gateway/events';
import { ADMIN, ADMIN_ENV, JWT_SECRET, caller, login, type Call } from './auth-fixtures';
import { startControlPlaneProcess, TEST_SETTINGS_ENCRYPTION_KEY, type ControlPlaneProcess } from './control-plane-process';
import { signedRedisBus } from './signed-redis-bus';
import { until } from './webhooks-fixtures';

/*
 * Issue 16, AI analysis: the real control plane and a loopback OpenAI-compatible server. What the
 * provider receives is asserted (no secret, no client address), and every way it can fail (slow,
 * malformed, unusable structure, budget spent) falls back to the built-in analyzer.
 */
const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const CLUSTER_TOKEN = 'ai-analysis-cluster-token-0123456789abcdef';
const PROVIDER_KEY = 'sk-provider-key-for-the-fake-0123456789';
const CLIENT_SECRET = 'sk-live-abcdef1234567890';

type Mode = 'good' | 'malformed' | 'bad-structure' | 'slow';
type Received = { method: string; url: string; authorization: string | undefined; body: string };
type Analysis = { answeredBy: string; fallbackReason: string | null; model: string | null; costUsd: number; summary: string; causes: Array<{ cause: string; confidence: number; evidence: Array<{ kind: string; ref: string }> }>; suggestedActions: Array<Record<string, unknown>> };

const GOOD_ANSWER = {
  summary: 'The users upstream fails since its last change.',
  causes: [{ cause: 'users-svc returns 500s', confidence: 0.7, evidence: [{ kind: 'event', ref: 'evt_x', detail: 'ERROR_RATE_SPIKE' }] }],
  suggestedActions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 120, routeId: 'users' }],
};

describe('AI analysis (real control plane, loopback OpenAI-compatible provider)', () => {
  const prefix = `e2e-ai:${process.pid}:${randomBytes(4).toString('hex')}:`;
  let cp: ControlPlaneProcess;
  let call: Call;
  let token: string;
  let events: SignedBus;
  let provider: http.Server;
  let providerUrl: string;
  let mode: Mode = 'good';
  const received: Received[] = [];
  let incidentId: string;

  const api = async <T>(method: string, urlPath: string, body?: unknown) => {
    const res = await call(method, urlPath, { token, body });
    return { status: res.status, json: res.json() as { data: T; code?: string; details?: { fields?: Array<{ field: string }> } } };
  };
  const analyse = async (): Promise<Analysis> => {
    const res = await api<Analysis>('POST', '/api/ai', { incidentId });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    return res.json.data;
  };
  const configure = async (ai: Record<string, unknown>): Promise<void> => {
    const res = await api('PUT', '/api/settings/ai', ai);
    assert.equal(res.status, 200, JSON.stringify(res.json));
  };

  before(async () => {
    provider = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body: Buffer.concat(chunks).toString('utf8') });
        const reply = (content: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'c1', choices: [{ index: 0, message: { role: 'assistant', content } }], usage: { prompt_tokens: 1000, completion_tokens: 500 } }));
        if (mode === 'good') reply(JSON.stringify(GOOD_ANSWER));
        else if (mode === 'malformed') reply('I think the upstream is down, probably.');
        else if (mode === 'bad-structure') reply(JSON.stringify({ ...GOOD_ANSWER, causes: [{ cause: 'x', confidence: 7, evidence: [] }] }));
        else setTimeout(() => reply(JSON.stringify(GOOD_ANSWER)), 4000).unref();
      });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
    events = signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN, 'ai-events');
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, REDIS_URL, CLUSTER_TOKEN, REDIS_CHANNEL_PREFIX: prefix, API_RATE_LIMIT_ADMIN_MAX: '100000' } });
    call = caller(cp);
    token = await login(call, ADMIN);
    assert.equal((await api('POST', '/api/routes', { id: 'users', path: '/users/*', upstream: 'http://127.0.0.1:9' })).status, 201);
    const eventId = `evt_${randomUUID()}`;
    await events.publish(EVENTS_CHANNEL, {
      id: eventId,
      type: 'ERROR_RATE_SPIKE',
      createdAt: new Date().toISOString(),
      data: { severity: 'CRITICAL', summary: `errors for client 203.0.113.7 with Authorization: Bearer ${CLIENT_SECRET}`, confidence: 0.9, data: { current_value: 0.4 }, context: { route: 'users', client_ip: '203.0.113.7', api_key: CLIENT_SECRET } },
    });
    incidentId = await until('the incident', async () => (await api<Array<{ id: string }>>('GET', '/api/ai-incidents')).json.data[0]?.id, 20_000);
  });

  after(async () => {
    await cp?.stop();
    await events?.close();
    await new Promise((resolve) => provider?.close(resolve));
  });

  test('without a provider the built-in analyzer answers, deterministically, with evidence and suggested actions', async () => {
    const first = await analyse();
    assert.deepEqual([first.answeredBy, first.fallbackReason, first.model, first.costUsd], ['built-in', null, null, 0]);
    const failing = first.causes.find((c) => c.cause.startsWith('the upstream of users fails'));
    assert.ok(failing !== undefined, JSON.stringify(first.causes));
    assert.equal(failing.evidence[0]?.kind, 'event');
    assert.ok(first.causes.some((c) => c.evidence.some((e) => e.kind === 'config-change')), 'the route created just before is a suspect');
    assert.deepEqual(first.suggestedActions, [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 300, routeId: 'users' }]);
    const second = await analyse();
    assert.deepEqual([second.causes, second.suggestedActions], [first.causes, first.suggestedActions]);
    const timeline = (await api<{ timeline: Array<{ kind: string; by: string }> }>('GET', `/api/ai-incidents/${incidentId}`)).json.data.timeline;
    assert.equal(timeline.at(-1)?.kind, 'analysis');
    assert.equal(timeline.at(-1)?.by, 'built-in analyzer');
    assert.equal(received.length, 0);
  });

  test('settings: the API key is write-only and sealed; bad fields are named', async () => {
    const bad = await api('PUT', '/api/settings/ai', { baseUrl: 'ftp://x', timeoutMs: 5, model: '' });
    assert.equal(bad.status, 400);
    assert.deepEqual((bad.json.details?.fields ?? []).map((f) => f.field).sort(), ['ai.baseUrl', 'ai.model', 'ai.timeoutMs']);
    await configure({ baseUrl: providerUrl, model: 'fake-model', apiKey: PROVIDER_KEY, timeoutMs: 1500 });
    const read = await api<Record<string, unknown>>('GET', '/api/settings/ai');
    assert.deepEqual([read.json.data['apiKey'], read.json.data['model'], read.json.data['baseUrl']], ['********', 'fake-model', providerUrl]);
    assert.equal(JSON.stringify((await api('GET', '/api/settings')).json).includes(PROVIDER_KEY), false);
    const assistant = await api<Record<string, unknown>>('PUT', '/api/settings/assistant', { temperature: 0.1, extraInstructions: 'Answer tersely.' });
    assert.deepEqual(assistant.json.data, { temperature: 0.1, extraInstructions: 'Answer tersely.' });
  });

  test('with the provider: its validated answer, its cost recorded; the request holds no secret and no client address; nothing runs', async () => {
    mode = 'good';
    const before = received.length;
    const result = await analyse();
    assert.deepEqual([result.answeredBy, result.model, result.summary], ['provider', 'fake-model', GOOD_ANSWER.summary]);
    assert.equal(result.costUsd, (1000 * 0.15 + 500 * 0.6) / 1_000_000);
    assert.deepEqual(result.suggestedActions, GOOD_ANSWER.suggestedActions);
    const request = received[before];
    assert.ok(request !== undefined);
    assert.deepEqual([request.method, request.url, request.authorization], ['POST', '/v1/chat/completions', `Bearer ${PROVIDER_KEY}`]);
    const body = JSON.parse(request.body) as { model: string; temperature: number; messages: Array<{ role: string; content: string }> };
    assert.deepEqual([body.model, body.temperature], ['fake-model', 0.1]);
    assert.match(body.messages[0]?.content ?? '', /Answer tersely\./);
    assert.match(body.messages[1]?.content ?? '', /ERROR_RATE_SPIKE/);
    // The metrics excerpt of the affected route (no traffic ran in this suite: zeros, but there).
    const context = JSON.parse(body.messages[1]?.content ?? '{}') as { metrics?: Array<{ route: string; rps: number; errorPercent: number; p95Ms: number; p99Ms: number; slices: unknown[] }> };
    assert.deepEqual(context.metrics?.map((m) => [m.route, typeof m.rps, typeof m.errorPercent, typeof m.p95Ms, typeof m.p99Ms, m.slices.length > 0]), [['users', 'number', 'number', 'number', 'number', true]]);
    for (const secret of [PROVIDER_KEY, CLIENT_SECRET, '203.0.113.7', token, ADMIN.password, JWT_SECRET, CLUSTER_TOKEN, TEST_SETTINGS_ENCRYPTION_KEY]) {
      assert.equal(request.body.includes(secret), false, `the provider request must not hold ${secret.slice(0, 12)}...`);
    }
    const status = await api<{ provider: { configured: boolean }; budget: { spentUsd: number } }>('GET', '/api/ai');
    assert.deepEqual([status.json.data.provider.configured, status.json.data.budget.spentUsd], [true, result.costUsd]);
    assert.equal((await api<unknown[]>('GET', '/api/runbook-executions')).json.data.length, 0, 'a suggestion never runs');
  });

  test('malformed, unusable and slow answers fall back to the built-in analyzer, saying why', async () => {
    mode = 'malformed';
    const malformed = await analyse();
    assert.deepEqual([malformed.answeredBy, malformed.fallbackReason], ['built-in', "the provider's answer is not usable: the content is not JSON"]);
    mode = 'bad-structure';
    const unusable = await analyse();
    assert.deepEqual([unusable.answeredBy, unusable.fallbackReason], ['built-in', "the provider's answer is not usable: causes[0].confidence must be a number from 0 to 1"]);
    mode = 'slow';
    const slow = await analyse();
    assert.deepEqual([slow.answeredBy, slow.fallbackReason], ['built-in', 'the provider did not answer within 1500 ms']);
    assert.ok(slow.causes.length > 0);
  });

  test('a base URL at a metadata address is refused by the outbound-target rule: the built-in analyzer answers with the refusal', async () => {
    await configure({ baseUrl: 'http://169.254.169.254/v1', model: 'fake-model', timeoutMs: 1500 });
    const refused = await analyse();
    assert.equal(refused.answeredBy, 'built-in');
    assert.match(refused.fallbackReason ?? '', /^the provider cannot be reached: 169\.254\.169\.254 is IPv4 link-local.*OUTBOUND_ALLOW_CIDRS lists exceptions$/);
    assert.ok(refused.causes.length > 0);
    await configure({ baseUrl: providerUrl, model: 'fake-model', timeoutMs: 1500 });
    mode = 'good';
    assert.equal((await analyse()).answeredBy, 'provider', 'the loopback provider still answers under the default rule');
  });

  test('a spent monthly budget keeps the provider out', async () => {
    mode = 'good';
    await configure({ baseUrl: providerUrl, model: 'fake-model', timeoutMs: 1500, monthlyBudgetUsd: 0.0001 });
    const calls = received.length;
    const result = await analyse();
    assert.deepEqual([result.answeredBy, result.fallbackReason], ['built-in', 'the monthly AI budget is spent']);
    assert.equal(received.length, calls);
  });

  test('bad requests name their field', async () => {
    const both = await api('POST', '/api/ai', { incidentId, from: new Date().toISOString(), extra: 1 });
    assert.deepEqual((both.json.details?.fields ?? []).map((f) => f.field).sort(), ['extra', 'incidentId']);
    const window = await api('POST', '/api/ai', { from: 'yesterday' });
    assert.deepEqual([window.status, (window.json.details?.fields ?? [])[0]?.field], [400, 'from']);
    assert.equal((await api('POST', '/api/ai', { incidentId: 'nope' })).json.code, 'AI_INCIDENT_NOT_FOUND');
    const lastHour = await api<Analysis>('POST', '/api/ai', {});
    assert.equal(lastHour.status, 200);
  });
});
