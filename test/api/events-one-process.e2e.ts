import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readServerSentEvents, request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { ADMIN, caller, login, type Call } from './auth-fixtures';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';
import { createWebhook, until } from './webhooks-fixtures';

interface Envelope {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown> & { severity?: string; confidence?: number; context?: Record<string, unknown>; data?: Record<string, unknown> };
}

/*
 * The event layer end to end in the one-process gateway: real data-plane traffic -> its telemetry
 * windows -> the control plane's series -> the detectors -> a stored event, the events API and
 * stream, and a signed webhook to a loopback receiver that verifies both signatures. A breaker
 * opening reaches the receiver as one grouped event and mutes its route's error events.
 */
describe('event layer: detectors on real traffic to a verified webhook (one-process gateway)', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  let receiver: WebhookReceiver;
  let call: Call;
  let token: string;

  before(async () => {
    upstream = await startUpstream({ handler: (_req, res) => res.writeHead(500).end('down') });
    receiver = await startWebhookReceiver();
    gateway = await startGatewayProcess({
      role: 'all',
      config: `version: "1.0.0"
routes:
  - { id: spike, path: /spike/*, upstream: "${upstream.origin}" }
  - { id: cb, path: /cb/*, upstream: "${upstream.origin}", circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 5, timeout: 60000 } }
`,
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, JWT_SECRET: 'events-e2e-secret-0123456789abcdef0123', OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' },
      startTimeoutMs: 60_000,
    });
    call = caller(gateway);
    token = await login(call, ADMIN);
  });
  after(async () => {
    await gateway?.stop();
    await upstream?.close();
    await receiver?.close();
  });

  const events = async (query: string): Promise<Envelope[]> => {
    const res = await call('GET', `/api/events${query}`, { token });
    assert.equal(res.status, 200, res.text);
    return res.json<{ data: Envelope[] }>().data;
  };

  test('a bad events setting is refused naming the field', async () => {
    const res = await call('PUT', '/api/settings', { token, body: { events: { errorRate: { threshold: 0 }, evaluationInterval: 'soon' } } });
    assert.equal(res.status, 400);
    const fields = res.json<{ details: { fields: Array<{ field: string }> } }>().details.fields.map((f) => f.field);
    assert.ok(fields.includes('events.errorRate.threshold'), JSON.stringify(fields));
    assert.ok(fields.includes('events.evaluationInterval'), JSON.stringify(fields));
  });

  test('an error spike on a route: ERROR_RATE_SPIKE stored, streamed and delivered signed, in the spec 6.1 shape', async () => {
    const put = await call('PUT', '/api/settings', { token, body: { events: { evaluationInterval: '2s', errorRate: { threshold: 10, window: '30s', minSamples: 5, minConfidence: 0.9 } } } });
    assert.equal(put.status, 200, put.text);
    const hook = await createWebhook(call, token, { url: receiver.url, events: ['ERROR_RATE_SPIKE', 'circuit_breaker.*'], severity: ['WARNING', 'CRITICAL'] });
    receiver.secrets = [hook.secret as string];
    const stream = await fetch(`${gateway.url}/api/events/stream`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(stream.status, 200);
    const streamed = readServerSentEvents(stream, (frames) => frames.some((frame) => frame.event === 'ERROR_RATE_SPIKE'));

    for (let i = 0; i < 20; i += 1) assert.equal((await request(`${gateway.url}/spike/x`)).status, 500);

    const got = await until('the ERROR_RATE_SPIKE webhook', () => receiver.received.find((r) => JSON.parse(r.body).type === 'ERROR_RATE_SPIKE'), 60_000);
    assert.deepEqual([got.gatewayVerified, got.standardVerified], [[true], [true]]);
    const body = JSON.parse(got.body) as Envelope;
    assert.equal(got.headers['webhook-id'], body.id);
    assert.deepEqual(Object.keys(body.data).sort(), ['confidence', 'context', 'data', 'severity', 'summary', 'type']);
    assert.equal(body.data.severity, 'CRITICAL');
    assert.equal(body.data.context?.['route'], 'spike');
    assert.deepEqual(Object.keys(body.data.data ?? {}).sort(), ['breach_ratio', 'current_value', 'threshold', 'trend']);
    assert.equal(body.data.data?.['current_value'], 100);
    assert.equal(body.data.data?.['threshold'], 10);
    assert.ok((body.data.confidence ?? 0) > 0.99 && (body.data.confidence ?? 2) <= 1);

    const stored = await events('?type=ERROR_RATE_SPIKE&route=spike&severity=CRITICAL');
    assert.deepEqual(stored.map((e) => e.id), [body.id]);
    assert.deepEqual(stored[0]?.data, body.data);
    const frames = await streamed;
    const frame = frames.find((f) => f.event === 'ERROR_RATE_SPIKE');
    assert.equal((JSON.parse(frame?.data ?? '{}') as Envelope).id, body.id);

    // Sustained: the same incident raises nothing more while it lasts.
    for (let i = 0; i < 20; i += 1) await request(`${gateway.url}/spike/x`);
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    assert.equal((await events('?type=ERROR_RATE_SPIKE&route=spike')).length, 1);
  });

  test('a breaker opening: one circuit_breaker.opened with instanceIds; its route\'s error events are muted', async () => {
    for (let i = 0; i < 10; i += 1) await request(`${gateway.url}/cb/x`);
    const got = await until('the breaker event', () => receiver.received.find((r) => JSON.parse(r.body).type === 'circuit_breaker.opened'), 60_000);
    assert.deepEqual([got.gatewayVerified, got.standardVerified], [[true], [true]]);
    const body = JSON.parse(got.body) as Envelope;
    assert.deepEqual([body.data['routeIds'], body.data['instanceIds']], [['cb'], [body.data['instanceId']]]);
    // Evaluations pass (2 s each, sealed 5 s late) with the route failing at 100 %: no ERROR_RATE_SPIKE for it.
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    assert.deepEqual(await events('?type=ERROR_RATE_SPIKE&route=cb'), []);
    assert.deepEqual((await events('?type=circuit_breaker.opened')).map((e) => e.id), [body.id]);
    assert.equal(receiver.received.filter((r) => JSON.parse(r.body).type === 'circuit_breaker.opened').length, 1);
  });

  test('GET /api/events: paginated envelope, filters checked', async () => {
    const res = await call('GET', '/api/events?limit=1', { token });
    const json = res.json<{ success: boolean; pagination: { total: number; limit: number; hasMore: boolean } }>();
    assert.equal(json.success, true);
    assert.equal(json.pagination.limit, 1);
    assert.ok(json.pagination.total >= 2);
    assert.equal(json.pagination.hasMore, true);
    const bad = await call('GET', '/api/events?severity=LOUD&from=yesterday', { token });
    assert.equal(bad.status, 400);
    assert.equal((await call('GET', '/api/events')).status, 401);
  });
});
