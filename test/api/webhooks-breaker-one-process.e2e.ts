import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { ADMIN, caller, login, type Call } from './auth-fixtures';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';
import { createWebhook, until } from './webhooks-fixtures';

/*
 * The whole path in the one-process gateway: failing upstream -> the data plane's breaker opens ->
 * circuit_breaker.opened on the in-process bus -> the control plane's webhook queue -> a signed
 * request to a loopback receiver.
 */
describe('a breaker opening in a real data plane reaches a webhook (one-process gateway)', () => {
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
  - { id: cb, path: /cb/*, upstream: "${upstream.origin}", circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 5, timeout: 60000 } }
`,
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, JWT_SECRET: 'webhooks-breaker-secret-0123456789abcdef', OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' },
      // Both planes boot in one process; on a loaded CI machine that took over the default 15 s.
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

  test('failures open the breaker; the receiver gets circuit_breaker.opened, both signatures verifying', async () => {
    const hook = await createWebhook(call, token, { url: receiver.url, events: ['circuit_breaker.*'] });
    receiver.secrets = [hook.secret as string];
    for (let i = 0; i < 10; i += 1) await request(`${gateway.url}/cb/x`);
    const got = await until('the breaker event', () => receiver.received[0]);
    const body = JSON.parse(got.body) as { id: string; type: string; data: { routeIds: string[]; reason: string } };
    assert.equal(body.type, 'circuit_breaker.opened');
    assert.deepEqual([body.data.routeIds, body.data.reason], [['cb'], 'failures']);
    assert.equal(got.headers['webhook-id'], body.id);
    assert.deepEqual([got.gatewayVerified, got.standardVerified], [[true], [true]]);
  });
});
