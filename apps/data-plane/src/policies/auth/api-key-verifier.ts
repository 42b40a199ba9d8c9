import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

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
}

/** A stored key: HMAC-SHA256(server key, api key) as lower-case hex, never the key (decision 22). */
export interface ApiKeyDigest extends ApiKeyIdentity {
  readonly digest: string;
}

/** Keys longer than this are refused before hashing (no one sends a 4 KiB key). */
const MAX_KEY_LENGTH = 512;

/**
 * The data plane's API-key verifier: an in-memory set of HMAC-SHA256 digests the control plane
 * feeds (through the route snapshot / `replace`). The presented key is hashed with the same server
 * key and compared with crypto.timingSafeEqual against every stored digest of its bucket (buckets by
 * the first digest byte keep the scan short without a secret-dependent early exit).
 */
export class HmacApiKeyVerifier implements ApiKeyVerifier {
  private buckets = new Map<number, Array<{ digest: Buffer; identity: ApiKeyIdentity }>>();
  private readonly serverKey: Buffer;

  constructor(serverKey?: string | Buffer) {
    // Without a server key no digest can ever match: the data plane knows no keys yet.
    this.serverKey = serverKey === undefined ? randomBytes(32) : Buffer.from(serverKey);
  }

  /** Digest of a key under this verifier's server key (the control plane stores exactly this). */
  digestOf(key: string): string {
    return createHmac('sha256', this.serverKey).update(key, 'utf8').digest('hex');
  }

  /** Swaps the whole set of known keys atomically (revoked keys are simply absent). */
  replace(entries: readonly ApiKeyDigest[]): void {
    const buckets = new Map<number, Array<{ digest: Buffer; identity: ApiKeyIdentity }>>();
    for (const entry of entries) {
      const digest = Buffer.from(entry.digest, 'hex');
      if (digest.length !== 32) throw new Error(`api key ${entry.keyId}: digest must be 64 hex characters`);
      const identity: ApiKeyIdentity = { keyId: entry.keyId, ...(entry.userId === undefined ? {} : { userId: entry.userId }), ...(entry.name === undefined ? {} : { name: entry.name }) };
      const bucket = buckets.get(digest[0] as number);
      if (bucket === undefined) buckets.set(digest[0] as number, [{ digest, identity }]);
      else bucket.push({ digest, identity });
    }
    this.buckets = buckets;
  }

  get size(): number {
    let n = 0;
    for (const bucket of this.buckets.values()) n += bucket.length;
    return n;
  }

  verify(presentedKey: string): Promise<ApiKeyIdentity | null> {
    if (presentedKey.length === 0 || presentedKey.length > MAX_KEY_LENGTH) return Promise.resolve(null);
    const digest = createHmac('sha256', this.serverKey).update(presentedKey, 'utf8').digest();
    let found: ApiKeyIdentity | null = null;
    for (const candidate of this.buckets.get(digest[0] as number) ?? []) {
      if (timingSafeEqual(candidate.digest, digest)) found = candidate.identity;
    }
    return Promise.resolve(found);
  }
}
