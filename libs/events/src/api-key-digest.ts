import { createHmac } from 'node:crypto';

/**
 * An API key as the data planes know it: its digest, never the key (decision 22). The control
 * plane sends the active keys in every route snapshot; a data plane hashes a presented key with
 * the same server key (API_KEY_SECRET) and compares digests in constant time.
 */
export interface ApiKeyDigest {
  /** The key's id: what `X-Gateway-Key-Id` carries upstream. */
  readonly keyId: string;
  /** HMAC-SHA256(server key, api key), 64 lower-case hex characters. */
  readonly digest: string;
  readonly name?: string;
  /** The owner (user id), for feeders that have one; the control plane's keys have none (docs/api-keys.md). */
  readonly userId?: string;
  /** ISO 8601. From then on the key is refused, even before the next snapshot leaves it out. */
  readonly expiresAt?: string;
}

/** The stored and compared form of an API key: HMAC-SHA256(server key, key) in hex. */
export function apiKeyDigest(serverKey: string | Buffer, key: string): string {
  return createHmac('sha256', serverKey).update(key, 'utf8').digest('hex');
}

/**
 * Identifies a server key without revealing it (an HMAC of a fixed label under that key), so a
 * data plane can tell that its API_KEY_SECRET is not the control plane's instead of silently
 * refusing every key.
 */
export function apiKeySecretFingerprint(serverKey: string | Buffer): string {
  return createHmac('sha256', serverKey).update('gateway:api-key-secret-fingerprint', 'utf8').digest('hex').slice(0, 16);
}
