import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyDigest } from '@gateway/events';
import { apiKeyDigest, apiKeySecretFingerprint } from '@gateway/events/data-plane';

export type { ApiKeyDigest } from '@gateway/events';

/** Who an API key belongs to, as the control plane describes it. */
export interface ApiKeyIdentity {
  readonly keyId: string;
  /** Owner (user id), when the key belongs to one. */
  readonly userId?: string;
  readonly name?: string;
}

/** Port the auth policy calls; the control plane may provide its own. */
export interface ApiKeyVerifier {
  verify(presentedKey: string): Promise<ApiKeyIdentity | null>;
  /**
   * Why no key can be verified at all (no server key, or not the control plane's), else undefined.
   * Routes that rely on API keys then answer 503 AUTH_NOT_CONFIGURED instead of 401 to everyone.
   */
  unavailable?(): string | undefined;
  /**
   * Takes the control plane's active keys (from each route snapshot) as the whole set; the
   * fingerprint of the control plane's server key, when given, is checked against this verifier's.
   */
  replace?(entries: readonly ApiKeyDigest[], secretFingerprint?: string): void;
}

export type { ApiKeySet } from '../../engine/persisted-snapshot';

/** Keys longer than this are refused before hashing (no one sends a 4 KiB key). */
const MAX_KEY_LENGTH = 512;

interface StoredKey {
  digest: Buffer;
  identity: ApiKeyIdentity;
  /** Epoch ms from which the key is refused; Infinity: never expires. */
  expiresAt: number;
}

/**
 * The data plane's API-key verifier: an in-memory set of HMAC-SHA256 digests the control plane
 * feeds (through the route snapshot / `replace`). The presented key is hashed with the same server
 * key and compared with crypto.timingSafeEqual against every stored digest of its bucket (buckets by
 * the first digest byte keep the scan short without a secret-dependent early exit). A key past its
 * expiry is refused at once, without waiting for the snapshot that leaves it out.
 */
export class HmacApiKeyVerifier implements ApiKeyVerifier {
  private buckets = new Map<number, StoredKey[]>();
  private readonly serverKey: Buffer;
  private readonly fingerprint: string | undefined;
  private mismatch = false;

  constructor(serverKey?: string | Buffer) {
    // Without a server key no digest can ever match: the verifier says so (unavailable()).
    this.serverKey = serverKey === undefined ? randomBytes(32) : Buffer.from(serverKey);
    this.fingerprint = serverKey === undefined ? undefined : apiKeySecretFingerprint(this.serverKey);
  }

  /** Digest of a key under this verifier's server key (the control plane stores exactly this). */
  digestOf(key: string): string {
    return apiKeyDigest(this.serverKey, key);
  }

  unavailable(): string | undefined {
    if (this.fingerprint === undefined) return 'no API key secret is configured (API_KEY_SECRET)';
    if (this.mismatch) return "API_KEY_SECRET differs from the control plane's: no API key can be verified";
    return undefined;
  }

  /** Swaps the whole set of known keys atomically (revoked keys are simply absent). */
  replace(entries: readonly ApiKeyDigest[], secretFingerprint?: string): void {
    const buckets = new Map<number, StoredKey[]>();
    for (const entry of entries) {
      const digest = Buffer.from(entry.digest, 'hex');
      if (digest.length !== 32) throw new Error(`api key ${entry.keyId}: digest must be 64 hex characters`);
      const expiresAt = entry.expiresAt === undefined ? Infinity : Date.parse(entry.expiresAt);
      if (Number.isNaN(expiresAt)) throw new Error(`api key ${entry.keyId}: expiresAt must be an ISO 8601 date`);
      const identity: ApiKeyIdentity = { keyId: entry.keyId, ...(entry.userId === undefined ? {} : { userId: entry.userId }), ...(entry.name === undefined ? {} : { name: entry.name }) };
      const stored: StoredKey = { digest, identity, expiresAt };
      const bucket = buckets.get(digest[0] as number);
      if (bucket === undefined) buckets.set(digest[0] as number, [stored]);
      else bucket.push(stored);
    }
    this.buckets = buckets;
    this.mismatch = secretFingerprint !== undefined && this.fingerprint !== undefined && secretFingerprint !== this.fingerprint;
  }

  get size(): number {
    let n = 0;
    for (const bucket of this.buckets.values()) n += bucket.length;
    return n;
  }

  verify(presentedKey: string): Promise<ApiKeyIdentity | null> {
    if (presentedKey.length === 0 || presentedKey.length > MAX_KEY_LENGTH) return Promise.resolve(null);
    const digest = createHmac('sha256', this.serverKey).update(presentedKey, 'utf8').digest();
    let found: StoredKey | undefined;
    for (const candidate of this.buckets.get(digest[0] as number) ?? []) {
      if (timingSafeEqual(candidate.digest, digest)) found = candidate;
    }
    if (found === undefined || Date.now() >= found.expiresAt) return Promise.resolve(null);
    return Promise.resolve(found.identity);
  }
}
