import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OutboundAddressRule, parseCidrList, REFUSED_UNLESS_PUBLIC } from '@gateway/outbound-target';
import { rebindingResolver, startUnresponsiveListener, startUpstream, type LoopbackUpstream } from '@gateway/testing';
import { sendWebhook } from './webhook-sender';

/** The webhook target rule with OUTBOUND_ALLOW_CIDRS=127.0.0.1/32, as the e2e suites run it. */
function webhookRule(allow: string): OutboundAddressRule {
  const parsed = parseCidrList(allow);
  assert.ok(parsed.ok);
  return new OutboundAddressRule(parsed.cidrs, REFUSED_UNLESS_PUBLIC);
}
const loopbackAllowed = webhookRule('127.0.0.1/32');
const request = (url: string): { url: string; headers: Record<string, string>; body: string } => ({ url, headers: { 'webhook-id': 'evt_1' }, body: '{"id":"evt_1"}' });

describe('sendWebhook against real loopback receivers', () => {
  let receiver: LoopbackUpstream;
  let bigAnswer: LoopbackUpstream;
  before(async () => {
    receiver = await startUpstream({
      handler: (req, res) => {
        if (req.url === '/redirect') res.writeHead(302, { location: '/ok' }).end();
        else if (req.url === '/gone') res.writeHead(410).end('gone');
        else if (req.url === '/busy') res.writeHead(429, { 'retry-after': '120' }).end();
        else if (req.url === '/fail') res.writeHead(500).end('boom');
        else res.writeHead(200).end('thanks');
      },
    });
    // An answer that never ends: only the excerpt is read, then the socket is dropped.
    bigAnswer = await startUpstream({ streaming: (_req, res) => {
      res.writeHead(200);
      res.write('x'.repeat(64 * 1024));
    } });
  });
  after(async () => {
    await receiver.close();
    await bigAnswer.close();
  });

  test('a 2xx is a success; the body and headers arrive as given', async () => {
    const outcome = await sendWebhook(request(`${receiver.origin}/ok`), { rule: loopbackAllowed, timeoutMs: 5000 });
    assert.equal(outcome.ok, true);
    assert.equal(outcome.statusCode, 200);
    assert.equal(outcome.responseExcerpt, 'thanks');
    const seen = receiver.requests.at(-1);
    assert.equal(seen?.body.toString(), '{"id":"evt_1"}');
    assert.equal(seen?.headers['webhook-id'], 'evt_1');
  });

  test('a redirect is a failure and is not followed; 410 says gone; Retry-After is read; 500 keeps the excerpt', async () => {
    const before = receiver.requests.length;
    const redirect = await sendWebhook(request(`${receiver.origin}/redirect`), { rule: loopbackAllowed, timeoutMs: 5000 });
    assert.equal(redirect.ok, false);
    assert.match(redirect.error ?? '', /redirect \(302\) not followed/);
    assert.equal(receiver.requests.length, before + 1, 'the Location was not requested');
    const gone = await sendWebhook(request(`${receiver.origin}/gone`), { rule: loopbackAllowed, timeoutMs: 5000 });
    assert.deepEqual([gone.ok, gone.gone, gone.statusCode], [false, true, 410]);
    const busy = await sendWebhook(request(`${receiver.origin}/busy`), { rule: loopbackAllowed, timeoutMs: 5000 });
    assert.equal(busy.retryAfterMs, 120_000);
    const failed = await sendWebhook(request(`${receiver.origin}/fail`), { rule: loopbackAllowed, timeoutMs: 5000 });
    assert.deepEqual([failed.ok, failed.statusCode, failed.responseExcerpt, failed.error], [false, 500, 'boom', 'answered 500']);
  });

  test('the answer is read only up to the excerpt size', async () => {
    const outcome = await sendWebhook(request(bigAnswer.origin), { rule: loopbackAllowed, timeoutMs: 5000 });
    assert.equal(outcome.ok, true);
    assert.equal(outcome.responseExcerpt?.length, 2048);
  });

  test('a receiver that never answers fails at the deadline', async () => {
    const silent = await startUnresponsiveListener();
    try {
      const outcome = await sendWebhook(request(`http://127.0.0.1:${silent.port}/`), { rule: loopbackAllowed, timeoutMs: 300 });
      assert.deepEqual([outcome.ok, outcome.statusCode, outcome.error], [false, null, 'timed out after 300 ms']);
    } finally {
      silent.close();
    }
  });

  test('loopback without an allowance is refused before any request, as a literal and in mapped form', async () => {
    const before = receiver.requests.length;
    for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]']) {
      const outcome = await sendWebhook(request(`http://${host}:${receiver.port}/ok`), { rule: webhookRule(''), timeoutMs: 5000 });
      assert.equal(outcome.ok, false);
      assert.match(outcome.error ?? '', /is loopback \(127\.0\.0\.0\/8\): .*OUTBOUND_ALLOW_CIDRS lists exceptions$/);
    }
    assert.equal(receiver.requests.length, before);
  });

  test('DNS rebinding: a name that resolves to an allowed address, then to a refused one, is judged on what the socket connects to', async () => {
    const rebinding = rebindingResolver(['127.0.0.1', '127.0.0.2']);
    const before = receiver.requests.length;
    const first = await sendWebhook(request(`http://hooks.rebind.test:${receiver.port}/ok`), { rule: loopbackAllowed, timeoutMs: 5000, resolve: rebinding });
    assert.equal(first.ok, true);
    const second = await sendWebhook(request(`http://hooks.rebind.test:${receiver.port}/ok`), { rule: loopbackAllowed, timeoutMs: 5000, resolve: rebinding });
    assert.equal(second.ok, false);
    assert.match(second.error ?? '', /^127\.0\.0\.2 \(hooks\.rebind\.test resolves to it\) is loopback/);
    assert.equal(receiver.requests.length, before + 1, 'only the first reached the receiver');
  });
});
