import { randomBytes } from 'node:crypto';

/** Standard Webhooks' prefix: secret scanners and people can tell what the string is. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64 (Standard Webhooks: 24 to 64 bytes). */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The key both HMACs use: the secret's decoded bytes, not its text, so the Standard Webhooks
 * libraries (which decode the part after `whsec_`) verify our signatures unchanged.
 */
export function webhookSecretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret, 'base64');
}
