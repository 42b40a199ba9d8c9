import { randomBytes } from 'node:crypto';
import { apiKeyDigest } from '@gateway/events';

/** Every key starts with this, so secret scanners and people can tell what it is. */
export const API_KEY_PREFIX = 'gw_';
/** How much of the key is kept for display: the prefix and 6 characters (36 of 256 random bits). */
const DISPLAY_LENGTH = API_KEY_PREFIX.length + 6;

export interface ApiKeyMaterial {
  /** Shown once, in the create response; never stored, logged or audited. */
  key: string;
  /** What the API shows to recognise the key. */
  prefix: string;
  /** HMAC-SHA256(server key, key) in hex: the only stored form (decision 22). */
  digest: string;
}

/** A new key: 32 random bytes (256 bits) as base64url after `gw_`, 46 characters in all. */
export function newApiKey(serverKey: string): ApiKeyMaterial {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, DISPLAY_LENGTH), digest: apiKeyDigest(serverKey, key) };
}
