import { GenerationalCache } from '../../engine/generational-cache';

/** How long a refused credential is answered 401 from memory: long enough to absorb a retry loop. */
export const REFUSED_TTL_MS = 5_000;
const REFUSED_MAX = 10_000;

/**
 * A short negative cache of credentials just refused, by a digest of the credential (never the
 * credential itself). Short, because a refusal can stop being right (a user created, a session
 * service that recovers); bounded, because every entry comes from a client.
 */
export class RefusedCredentials {
  private readonly until = new GenerationalCache<string, number>(REFUSED_MAX / 2);

  constructor(
    private readonly ttlMs = REFUSED_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  has(digest: string): boolean {
    const until = this.until.get(digest);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.until.delete(digest);
    return false;
  }

  add(digest: string): void {
    this.until.set(digest, this.now() + this.ttlMs);
  }
}
