import { createHmac } from 'node:crypto';
import { webhookSecretKey } from './webhook-secret';

export interface SignedMessage {
  /** The event id: `webhook-id` and the body's `id`, the same on every attempt. */
  eventId: string;
  /** `X-Gateway-Delivery`: the (webhook, event) delivery. */
  deliveryId: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** The exact bytes sent. */
  body: string;
}

/**
 * The signature headers of one attempt, with every secret that signs now (the current one first,
 * then the previous one during a rotation's overlap):
 * - decision 24: `X-Gateway-Signature: t=<ts>,v1=<hex HMAC(key, ts + "." + body)>[,v1=<hex>]`;
 * - Standard Webhooks: `webhook-signature: v1,<base64 HMAC(key, id + "." + ts + "." + body)>[ v1,...]`.
 * Both keyed with the secret's decoded bytes.
 */
export function signatureHeaders(message: SignedMessage, secrets: readonly string[]): Record<string, string> {
  const keys = secrets.map(webhookSecretKey);
  const gateway = keys.map((key) => `v1=${createHmac('sha256', key).update(`${message.timestamp}.${message.body}`).digest('hex')}`);
  const standard = keys.map((key) => `v1,${createHmac('sha256', key).update(`${message.eventId}.${message.timestamp}.${message.body}`).digest('base64')}`);
  return {
    'x-gateway-signature': [`t=${message.timestamp}`, ...gateway].join(','),
    'x-gateway-delivery': message.deliveryId,
    'webhook-id': message.eventId,
    'webhook-timestamp': String(message.timestamp),
    'webhook-signature': standard.join(' '),
  };
}
