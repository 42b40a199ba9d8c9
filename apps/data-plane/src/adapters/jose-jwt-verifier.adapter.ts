import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import type { JWTVerifyOptions } from 'jose';
import { GenerationalCache } from '../engine/generational-cache';
import type { JwtCheck, JwtOutcome, JwtVerifierFactory, JwtVerify } from '../policies/auth/jwt-verifier';

/** Tokens above this are refused unparsed (the header size limit bounds them anyway). */
const MAX_TOKEN_LENGTH = 8192;

/**
 * A verified token is remembered (keyed by the whole token string, so only the identical token
 * matches) for at most this long and never past its `exp`: clients send the same token on every
 * request, and a signature check per request costs more than the rest of the proxying.
 */
const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX = 10_000;

interface Remembered {
  outcome: JwtOutcome;
  until: number;
}

const REASONS: Record<string, string> = {
  ERR_JWT_EXPIRED: 'expired',
  ERR_JWT_CLAIM_VALIDATION_FAILED: 'claim',
  ERR_JOSE_ALG_NOT_ALLOWED: 'algorithm',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'signature',
  ERR_JOSE_NOT_SUPPORTED: 'unsupported',
  ERR_JWS_INVALID: 'malformed',
  ERR_JWT_INVALID: 'malformed',
};

/** jose is loaded at the first token to check: a data plane without JWT routes never loads it. */
let jose: Promise<typeof import('jose')> | undefined;

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return 'invalid';
  const reason = REASONS[code] ?? 'invalid';
  // Which claim failed is useful and never secret (exp, iss, nbf).
  const claim = (error as { claim?: unknown }).claim;
  return reason === 'claim' && typeof claim === 'string' ? `claim_${claim}` : reason;
}

/**
 * The JwtVerifierFactory port over jose. The key is built once per route: an HMAC secret for HS*
 * algorithms, a public key (PEM) for the others; a list mixing both families is refused, because
 * that is exactly the setup where a public key is abused as an HMAC secret (algorithm confusion).
 * jose itself refuses `alg: none`, algorithms outside the list, a key of the wrong type for the
 * token's algorithm, and unknown `crit` header parameters.
 */
export const joseJwtVerifierFactory: JwtVerifierFactory = {
  create(check: JwtCheck): JwtVerify {
    const hmac = check.algorithms.filter((alg) => alg.startsWith('HS'));
    if (hmac.length > 0 && hmac.length !== check.algorithms.length) {
      throw new Error('auth.jwt.algorithms mixes HMAC (HS*) and public-key algorithms; list one family (algorithm confusion)');
    }
    let key: KeyObject;
    if (hmac.length > 0) {
      if (check.secret.length < 32) throw new Error('the HMAC secret named by auth.jwt.secretEnv is shorter than 32 characters');
      key = createSecretKey(Buffer.from(check.secret, 'utf8'));
    } else {
      try {
        key = createPublicKey(check.secret);
      } catch {
        throw new Error('the variable named by auth.jwt.secretEnv does not hold a PEM public key');
      }
    }
    const options: JWTVerifyOptions = { algorithms: [...check.algorithms] };
    if (check.issuer !== undefined) options.issuer = check.issuer;
    if (check.validateExpiration) options.requiredClaims = ['exp'];
    // jose always checks a present exp; validateExpiration: false means it is not enforced.
    else options.clockTolerance = Number.MAX_SAFE_INTEGER;
    const verified = new GenerationalCache<string, Remembered>(VERIFIED_MAX / 2);
    const remember = (token: string, outcome: JwtOutcome & { ok: true }): void => {
      const exp = outcome.claims['exp'];
      const now = Date.now();
      const until = Math.min(now + VERIFIED_TTL_MS, check.validateExpiration && typeof exp === 'number' ? exp * 1000 : Number.POSITIVE_INFINITY);
      if (until <= now) return;
      verified.set(token, { outcome, until });
    };
    const verifyFully = async (token: string): Promise<JwtOutcome> => {
      try {
        const { payload } = await (await (jose ??= import('jose'))).jwtVerify(token, key, options);
        const outcome = { ok: true as const, claims: payload };
        remember(token, outcome);
        return outcome;
      } catch (error) {
        return { ok: false, reason: reasonOf(error) };
      }
    };
    return (token: string): JwtOutcome | Promise<JwtOutcome> => {
      if (token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'malformed' };
      const known = verified.get(token);
      if (known !== undefined) {
        if (known.until > Date.now()) return known.outcome;
        verified.delete(token);
      }
      return verifyFully(token);
    };
  },
};
