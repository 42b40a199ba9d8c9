import { hash } from 'node:crypto';
import { FINGERPRINT_BYTES } from './proxy-config-worker-protocol';
import { eachInChunks } from './engine/time-slices';

/**
 * A definition's identity: 128 bits of SHA-256 over its canonical JSON (schema key order).
 * `crypto.hash` (node 20.12+) is one native call: a Hash object per route made fingerprinting
 * 10,000 routes cost ~40 ms of CPU against ~13 ms (in-process, cold), the same digests.
 */
export function routeFingerprint(json: string): string {
  return hash('sha256', json, 'base64url').slice(0, FINGERPRINT_BYTES);
}

/** A served route that may not know its fingerprint yet (TableRoute). */
export interface FingerprintableRoute {
  readonly route: object;
  readonly fingerprint: string | undefined;
  takeFirstFingerprint(fingerprint: string): void;
}

/** Routes fingerprinted in one step (one is ~10 µs: a JSON.stringify and a SHA-256). */
const ROUTES_PER_STEP = 64;

/**
 * Gives the routes loaded at start-up the fingerprints the reload worker would give them, a few a
 * step, for runInSlices once the gateway listens. Start-up reads proxy.yml in one piece and makes
 * none (that would delay listening by ~100 ms at 10,000 routes); without them the first reload
 * after start compared all 10,000 routes by content and parsed each of them again (~400 ms of
 * main-thread CPU against ~130 ms for a later reload, and its longest GC pauses).
 */
export function* fingerprintSteps(routes: readonly FingerprintableRoute[]): Generator<void, void, void> {
  yield* eachInChunks(
    routes,
    (served) => {
      if (served.fingerprint === undefined) served.takeFirstFingerprint(routeFingerprint(JSON.stringify(served.route)));
    },
    ROUTES_PER_STEP,
  );
}
