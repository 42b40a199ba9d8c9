import type { Lease, LeaseGrant } from './lease.service';

/** Which lease, how long it outlives a holder that stops renewing, and how often the holder renews. */
export interface LeaseTerms {
  readonly name: string;
  readonly ttlMs: number;
  /** Well below `ttlMs` (a third or less), so one slow renewal does not lose the lease. */
  readonly renewMs: number;
}

/**
 * Keeps a lease while `work` runs by acquiring it again every `renewMs`, so work longer than the
 * TTL does not lose it; each outcome (a grant, or undefined once another instance took it) goes to
 * `onRenewed`. A lost lease is not an error here: the work's fenced writes notice it.
 */
export async function holdLeaseWhile<T>(
  lease: Lease,
  terms: LeaseTerms,
  work: Promise<T>,
  onRenewed: (grant: LeaseGrant | undefined) => void,
  onError: (error: Error) => void,
): Promise<T> {
  let inFlight: Promise<void> = Promise.resolve();
  const renewal = setInterval(() => {
    inFlight = lease.acquire(terms.name, terms.ttlMs).then(onRenewed, onError);
  }, terms.renewMs);
  try {
    return await work;
  } finally {
    clearInterval(renewal);
    // A renewal that lands after the caller released the lease would take it back until the TTL.
    await inFlight;
  }
}
