import { createHmac, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { parseBasicHash, type BasicHashParts } from '@gateway/route-model';
import { GenerationalCache } from '../../engine/generational-cache';

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

/**
 * A route's basic-auth users. Passwords are checked with scrypt on the libuv pool (never blocking
 * the event loop) and compared with timingSafeEqual; successful checks are remembered for a minute
 * under an HMAC of the credentials with a per-process key (the password itself is never kept).
 */
export class BasicCredentials {
  private readonly users = new Map<string, BasicHashParts>();
  private readonly verified = new GenerationalCache<string, number>(VERIFIED_MAX / 2);
  private readonly memoKey = randomBytes(32);

  constructor(users: Readonly<Record<string, string>>) {
    for (const [user, hash] of Object.entries(users)) {
      const parts = parseBasicHash(hash);
      // The route model refuses malformed hashes; a user that still fails to parse can never log in.
      if (parts !== undefined) this.users.set(user, parts);
    }
  }

  async verify(user: string, password: string): Promise<boolean> {
    const memo = createHmac('sha256', this.memoKey).update(user).update('\u0000').update(password).digest('base64');
    const until = this.verified.get(memo);
    if (until !== undefined && until > Date.now()) return true;
    const parts = this.users.get(user);
    const derived = await derive(password, parts ?? DUMMY);
    const ok = parts !== undefined && timingSafeEqual(derived, parts.key);
    if (ok) {
      this.verified.set(memo, Date.now() + VERIFIED_TTL_MS);
    }
    return ok;
  }
}
