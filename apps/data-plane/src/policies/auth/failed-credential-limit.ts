import { GenerationalCache } from '../../engine/generational-cache';

export interface FailedCredentialLimitSettings {
  /** Attempts an address may have pending or failed per window before it is answered 429. */
  readonly maxFailures: number;
  readonly windowMs: number;
  /** Addresses remembered at most (two generations of half as many; the oldest half goes whole). */
  readonly maxAddresses: number;
}

/**
 * Gateway defaults (docs/auth-and-limits.md, "Refusals"): ten wrong credentials a minute is far
 * more than a person mistyping, and far less than any password guessing needs.
 */
export const FAILED_CREDENTIAL_DEFAULTS: FailedCredentialLimitSettings = { maxFailures: 10, windowMs: 60_000, maxAddresses: 20_000 };

interface Window {
  attempts: number;
  /** Attempts this window allows: maxFailures, or 1 after a window the address used up (probation). */
  allowance: number;
  resetAt: number;
}

/**
 * Failed credentials per client address, in fixed windows, checked before any expensive
 * verification (scrypt, a session-service call). An attempt is counted when it starts and given
 * back only when the credential turns out right (or could not be judged: the session service was
 * down), so concurrent checks from one address cannot overshoot the limit while they are in flight,
 * and a credential the gateway had no capacity to check (503) still costs the address an attempt.
 * An address that used up a window is on probation: one attempt per window until a credential of
 * it is right, so a sustained flood from many addresses costs one check per address and window,
 * not `maxFailures`, while a person who mistyped ten times still gets a try every window.
 */
export class FailedCredentialLimit {
  private readonly windows: GenerationalCache<string, Window>;

  constructor(
    readonly settings: FailedCredentialLimitSettings = FAILED_CREDENTIAL_DEFAULTS,
    private readonly now: () => number = Date.now,
  ) {
    this.windows = new GenerationalCache(Math.max(1, Math.floor(settings.maxAddresses / 2)));
  }

  /** 0: the address may present a credential now (one attempt is counted); else seconds until it may. */
  attempt(address: string): number {
    const now = this.now();
    let window = this.windows.get(address);
    if (window === undefined) {
      window = { attempts: 0, allowance: this.settings.maxFailures, resetAt: now + this.settings.windowMs };
      this.windows.set(address, window);
    } else if (window.resetAt <= now) {
      window.allowance = window.attempts >= window.allowance ? 1 : this.settings.maxFailures;
      window.attempts = 0;
      window.resetAt = now + this.settings.windowMs;
    }
    if (window.attempts >= window.allowance) return Math.max(1, Math.ceil((window.resetAt - now) / 1000));
    window.attempts += 1;
    return 0;
  }

  /** The attempt did not fail: the address gets it back. */
  refund(address: string): void {
    const window = this.windows.get(address);
    if (window !== undefined && window.attempts > 0) window.attempts -= 1;
  }

  /** A credential from the address was right: probation ends. */
  succeeded(address: string): void {
    this.refund(address);
    const window = this.windows.get(address);
    if (window !== undefined) window.allowance = this.settings.maxFailures;
  }
}
