import { createHash, hkdfSync } from 'node:crypto';

/**
 * The key that signs bus messages, derived from CLUSTER_TOKEN with HKDF-SHA256 so the token itself
 * (which also authenticates snapshot requests) is never used as a MAC key, and identified by a key
 * id that is a hash of the derived key, not of the token.
 */
export interface BusSigningKey {
  /** 16 hex characters: the first 8 bytes of SHA-256(key). */
  readonly kid: string;
  readonly key: Buffer;
}

const SALT = 'gateway-bus-signing-v1';
const INFO = 'HMAC-SHA256 key of cluster bus messages';

export function deriveBusSigningKey(clusterToken: string): BusSigningKey {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(clusterToken, 'utf8'), SALT, INFO, 32));
  return { kid: createHash('sha256').update(key).digest('hex').slice(0, 16), key };
}
