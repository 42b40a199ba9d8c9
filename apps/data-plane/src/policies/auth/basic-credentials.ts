import { createHmac, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { parseBasicHash, type BasicHashParts } from '@gateway/route-model';
import { GenerationalCache } from '../../engine/generational-cache';
import { RefusedCredentials } from './refused-credentials';
import type { ScryptQueue } from './scrypt-queue';
import { SingleFlight } from './single-flight';

/** Memory scrypt may use for the largest parameters the route model accepts. */
function maxmem(parts: BasicHashParts): number {
  return 256 * parts.N * parts.r + 1024 * 1024;
}

/**
 * Makes the stored form of a password: `scrypt$N$r$p$<salt b64>$<key b64>` (route model's
 * basic-hash.ts). N=16384, r=8, p=1 (OWASP's scrypt minimum) unless told otherwise.
 */
export function hashBasicPassword(password: string, options: { N?: number; r?: number; p?: number } = {}): string {
  const N = options.N ?? 16384;
  const r = options.r ?? 8;
  const p = options.p ?? 1;
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

function derive(password: string, parts: BasicHashParts): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, parts.salt, parts.key.length, { N: parts.N, r: parts.r, p: parts.p, maxmem: maxmem(parts) }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Unknown users are checked against this so they cost the same as known ones. */
const DUMMY: BasicHashParts = { N: 16384, r: 8, p: 1, salt: randomBytes(16), key: randomBytes(32) };

/** How long a verified user/password pair is remembered, so scrypt runs once per client per minute, not per request. */
const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX = 10_000;

/** `busy`: the scrypt queue was full, the password was not checked (503 AUTH_OVERLOADED). */
export type BasicVerdict = 'ok' | 'refused' | 'busy';

/**
 * A route's basic-auth users. Passwords are checked with scrypt on the libuv pool (never blocking
 * the event loop), through the data plane's ScryptQueue, and compared with timingSafeEqual.
 * Credentials are known by an HMAC of user and password under a per-process key (the password
 * itself is never kept): right ones are remembered for a minute, refused ones for a few seconds,
 * and concurrent checks of one pair share one derivation.
 */
export class BasicCredentials {
  private readonly users = new Map<string, BasicHashParts>();
  private readonly verified = new GenerationalCache<string, number>(VERIFIED_MAX / 2);
  private readonly refused = new RefusedCredentials();
  private readonly checks = new SingleFlight<string, BasicVerdict>();
  private readonly memoKey = randomBytes(32);

  constructor(
    users: Readonly<Record<string, string>>,
    private readonly scrypt: ScryptQueue,
  ) {
    for (const [user, hash] of Object.entries(users)) {
      const parts = parseBasicHash(hash);
      // The route model refuses malformed hashes; a user that still fails to parse can never log in.
      if (parts !== undefined) this.users.set(user, parts);
    }
  }

  /** The digest a user/password pair is known by in this object's memories. */
  digest(user: string, password: string): string {
    return createHmac('sha256', this.memoKey).update(user).update('\u0000').update(password).digest('base64');
  }

  /** Verified within the last minute: answered without scrypt, before any limit applies. */
  remembered(digest: string): boolean {
    const until = this.verified.get(digest);
    return until !== undefined && until > Date.now();
  }

  /** A check of this pair is under way: a request presenting it joins that check. */
  checking(digest: string): boolean {
    return this.checks.has(digest);
  }

  verify(digest: string, user: string, password: string): Promise<BasicVerdict> {
    if (this.refused.has(digest)) return Promise.resolve('refused');
    return this.checks.run(digest, () => this.check(digest, user, password));
  }

  private async check(digest: string, user: string, password: string): Promise<BasicVerdict> {
    const parts = this.users.get(user);
    const derivation = this.scrypt.run(() => derive(password, parts ?? DUMMY));
    if (derivation === undefined) return 'busy';
    const derived = await derivation;
    const ok = parts !== undefined && timingSafeEqual(derived, parts.key);
    if (ok) this.verified.set(digest, Date.now() + VERIFIED_TTL_MS);
    else this.refused.add(digest);
    return ok ? 'ok' : 'refused';
  }
}
