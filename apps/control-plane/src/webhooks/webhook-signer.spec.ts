import { createHmac, timingSafeEqual } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { newWebhookSecret, webhookSecretKey } from './webhook-secret';
import { signatureHeaders, type SignedMessage } from './webhook-signer';

const message: SignedMessage = { eventId: 'evt_1', deliveryId: 'dlv_1', timestamp: 1_700_000_000, body: '{"id":"evt_1","type":"webhook.ping"}' };

/** A receiver's check, written from the two specifications, not from the signer. */
function verifies(headers: Record<string, string>, body: string, secret: string): { gateway: boolean; standard: boolean } {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const [t, ...v1] = (headers['x-gateway-signature'] as string).split(',');
  const ts = (t as string).slice(2);
  const expectedHex = Buffer.from(createHmac('sha256', key).update(`${ts}.${body}`).digest('hex'));
  const gateway = v1.some((part) => {
    const candidate = Buffer.from(part.slice(3));
    return candidate.length === expectedHex.length && timingSafeEqual(candidate, expectedHex);
  });
  const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest('base64');
  const standard = (headers['webhook-signature'] as string).split(' ').some((part) => part === `v1,${expected}`);
  return { gateway, standard };
}

test('a secret is whsec_ and 32 random bytes in base64; the HMAC key is the decoded bytes', () => {
  const secret = newWebhookSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(webhookSecretKey(secret).length, 32);
  assert.notEqual(newWebhookSecret(), secret);
});

test('both schemes verify with the secret; headers name the event and the delivery', () => {
  const secret = newWebhookSecret();
  const headers = signatureHeaders(message, [secret]);
  assert.deepEqual(verifies(headers, message.body, secret), { gateway: true, standard: true });
  assert.equal(headers['webhook-id'], 'evt_1');
  assert.equal(headers['x-gateway-delivery'], 'dlv_1');
  assert.equal(headers['webhook-timestamp'], '1700000000');
  assert.match(headers['x-gateway-signature'] as string, /^t=1700000000,v1=[0-9a-f]{64}$/);
  assert.deepEqual(verifies(headers, message.body, newWebhookSecret()), { gateway: false, standard: false });
});

test('during a rotation both secrets sign, new first', () => {
  const [next, previous] = [newWebhookSecret(), newWebhookSecret()];
  const headers = signatureHeaders(message, [next, previous]);
  assert.match(headers['x-gateway-signature'] as string, /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
  assert.equal((headers['webhook-signature'] as string).split(' ').length, 2);
  assert.deepEqual(verifies(headers, message.body, next), { gateway: true, standard: true });
  assert.deepEqual(verifies(headers, message.body, previous), { gateway: true, standard: true });
});

test('any changed body byte fails both verifications', () => {
  const secret = newWebhookSecret();
  const headers = signatureHeaders(message, [secret]);
  fc.assert(
    fc.property(fc.nat({ max: message.body.length - 1 }), fc.integer({ min: 1, max: 127 }), (index, delta) => {
      const code = (message.body.charCodeAt(index) + delta) % 128;
      const changed = message.body.slice(0, index) + String.fromCharCode(code) + message.body.slice(index + 1);
      assert.deepEqual(verifies(headers, changed, secret), { gateway: false, standard: false });
    }),
  );
});
