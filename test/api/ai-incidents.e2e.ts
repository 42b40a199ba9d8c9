import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENTS_CHANNEL, type SignedBus } from '@gateway/events';
import { ADMIN, ADMIN_ENV, caller, login, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { signedRedisBus } from './signed-redis-bus';
import { until } from './webhooks-fixtures';

/*
 * Issue 16, incidents: the real control plane (child process, Redis bus); events published on the
 * bus as detectors and data planes do; grouping, resolution and what people do through the API.
 */
const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const CLUSTER_TOKEN = 'incidents-cluster-token-0123456789abcdef';

type Incident = { id: string; title: string; status: string; severity: string; routes: string[]; upstreams: string[]; hypothesis: string | null; timeline: Array<{ kind: string; text: string; by: string; eventId?: string }> };

describe('AI incidents (real control plane, real Redis)', () => {
  const prefix = `e2e-incidents:${process.pid}:${randomBytes(4).toString('hex')}:`;
  let cp: ControlPlaneProcess;
  let call: Call;
  let token: string;
  let userToken: string;
  let events: SignedBus;

  const api = async <T>(method: string, urlPath: string, body?: unknown, as = token) => {
    const res = await call(method, urlPath, { token: as, body });
    return { status: res.status, json: (res.status === 204 ? {} : res.json()) as { data: T; code?: string; details?: { fields?: Array<{ field: string }> } } };
  };
  const emit = async (type: string, severity: string, context: Record<string, unknown>): Promise<string> => {
    const id = `evt_${randomUUID()}`;
    await events.publish(EVENTS_CHANNEL, { id, type, createdAt: new Date().toISOString(), data: { severity, summary: `${type} seen`, confidence: 0.9, data: { current_value: 1, threshold: 0.5, breach_ratio: 2, trend: 'rising' }, context } });
    return id;
  };
  const incidentWith = (eventId: string, wanted: (i: Incident) => boolean = () => true): Promise<Incident> =>
    until(`the incident holding ${eventId}`, async () => (await api<Incident[]>('GET', '/api/ai-incidents?limit=100')).json.data.find((i) => i.timeline.some((t) => t.eventId === eventId) && wanted(i)), 20_000);

  before(async () => {
    events = signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN, 'incidents-events');
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, REDIS_URL, CLUSTER_TOKEN, REDIS_CHANNEL_PREFIX: prefix, API_RATE_LIMIT_ADMIN_MAX: '100000' } });
    call = caller(cp);
    token = await login(call, ADMIN);
    const user = { email: 'viewer@example.com', password: 'a long and quiet afternoon 42' };
    assert.equal((await api('POST', '/api/users', { ...user, role: 'user' })).status, 201);
    userToken = await login(call, user);
  });

  after(async () => {
    await cp?.stop();
    await events?.close();
  });

  test('a CRITICAL event opens an incident; related events join it, unrelated ones do not; RECOVERY_SIGNAL resolves only its own', async () => {
    const first = await emit('ERROR_RATE_SPIKE', 'CRITICAL', { route: 'users', upstream: 'users-svc' });
    const opened = await incidentWith(first);
    assert.deepEqual([opened.status, opened.severity, opened.routes, opened.upstreams], ['open', 'CRITICAL', ['users'], ['users-svc']]);

    const related = await emit('LATENCY_ANOMALY', 'WARNING', { upstream: 'users-svc', route: 'users-v2' });
    const grown = await incidentWith(related);
    assert.equal(grown.id, opened.id);
    assert.deepEqual([grown.severity, grown.routes.sort(), grown.timeline.filter((t) => t.kind === 'event').length], ['CRITICAL', ['users', 'users-v2'], 2]);

    const unrelated = await emit('LATENCY_ANOMALY', 'WARNING', { route: 'orders' });
    const other = await emit('ERROR_RATE_SPIKE', 'CRITICAL', { route: 'orders' });
    const second = await incidentWith(other);
    assert.notEqual(second.id, opened.id);
    assert.equal(second.timeline.some((t) => t.eventId === unrelated), false, 'a WARNING with no incident opens none and joins none later');

    const recovered = await emit('RECOVERY_SIGNAL', 'INFO', { route: 'users' });
    const resolved = await incidentWith(recovered, (i) => i.status === 'resolved');
    assert.equal(resolved.id, opened.id);
    assert.equal(resolved.timeline.at(-1)?.text, 'open -> resolved (recovery signal)');
    assert.equal((await api<Incident>('GET', `/api/ai-incidents/${second.id}`)).json.data.status, 'open');
  });

  test("a runbook's run on an incident's event joins the incident's timeline", async () => {
    assert.equal((await api('POST', '/api/routes', { id: 'pay', path: '/pay/*', upstream: 'http://127.0.0.1:9', circuitBreaker: { enabled: true } })).status, 201);
    const runbook = await api('POST', '/api/runbooks', { name: 'pay-breaker', trigger: { eventType: 'ERROR_RATE_SPIKE', conditions: { routeId: 'pay' } }, actions: [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 30 }], safety: { requiresApproval: false } });
    assert.equal(runbook.status, 201, JSON.stringify(runbook.json));
    const eventId = await emit('ERROR_RATE_SPIKE', 'CRITICAL', { route: 'pay' });
    const incident = await incidentWith(eventId, (i) => i.timeline.some((t) => t.kind === 'execution'));
    const entry = incident.timeline.find((t) => t.kind === 'execution');
    assert.equal(entry?.eventId, eventId);
    // No data plane follows this control plane: the action fails and the entry says so.
    assert.match(entry?.text ?? '', /^Runbook "pay-breaker" failed: no breaker held: pay DATA_PLANES_UNAVAILABLE/);
  });

  test('people open, edit, note, close and delete incidents; validation names every bad field; a user can do none of it', async () => {
    const bad = await api('POST', '/api/ai-incidents', { title: '', severity: 'HUGE', status: 'gone', routes: 'users', colour: 1 });
    assert.equal(bad.status, 400);
    assert.deepEqual((bad.json.details?.fields ?? []).map((f) => f.field).sort(), ['colour', 'routes', 'severity', 'status', 'title']);
    const created = await api<Incident>('POST', '/api/ai-incidents', { title: 'Checkout slow', severity: 'WARNING', routes: ['checkout'] });
    assert.equal(created.status, 201);
    const id = created.json.data.id;
    const edited = await api<Incident>('PUT', `/api/ai-incidents/${id}`, { status: 'acknowledged', hypothesis: 'the payment provider throttles us' });
    assert.deepEqual([edited.json.data.status, edited.json.data.hypothesis, edited.json.data.timeline.at(-1)?.text], ['acknowledged', 'the payment provider throttles us', 'open -> acknowledged']);
    const noted = await api<Incident>('POST', `/api/ai-incidents/${id}/notes`, { text: 'called the provider' });
    assert.deepEqual([noted.status, noted.json.data.timeline.at(-1)?.kind, noted.json.data.timeline.at(-1)?.by], [201, 'note', ADMIN.email]);
    assert.equal((await api('POST', `/api/ai-incidents/${id}/notes`, { text: '' })).status, 400);
    const closed = await api<Incident & { resolvedAt: string | null }>('PUT', `/api/ai-incidents/${id}`, { status: 'resolved' });
    assert.equal(closed.json.data.status, 'resolved');
    assert.ok(closed.json.data.resolvedAt !== null);

    assert.equal((await api('GET', `/api/ai-incidents/${id}`, undefined, userToken)).status, 403);
    assert.equal((await api('GET', '/api/ai-incidents', undefined, userToken)).status, 403);
    assert.equal((await api('PUT', `/api/ai-incidents/${id}`, { status: 'open' }, userToken)).status, 403);
    assert.equal((await api('DELETE', `/api/ai-incidents/${id}`, undefined, userToken)).status, 403);
    assert.equal((await api('DELETE', `/api/ai-incidents/${id}`)).status, 204);
    assert.equal((await api('GET', `/api/ai-incidents/${id}`)).json.code, 'AI_INCIDENT_NOT_FOUND');
    assert.equal((await api('GET', '/api/ai-incidents?status=maybe')).status, 400);
  });
});
