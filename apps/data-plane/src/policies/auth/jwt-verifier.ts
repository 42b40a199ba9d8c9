/** What a route's JWT check needs (spec 2.1 `auth.jwt`), the secret already read from the environment. */
export interface JwtCheck {
  /** HS*: the shared secret; asymmetric algorithms: the PEM public key. */
  readonly secret: string;
  readonly algorithms: readonly string[];
  /** When set, `iss` must equal it. */
  readonly issuer?: string;
  /** `exp` required and enforced. */
  readonly validateExpiration: boolean;
}

export type JwtOutcome = { ok: true; claims: Readonly<Record<string, unknown>> } | { ok: false; reason: string };

/** Synchronous when the answer is already known (a token verified moments ago). */
export type JwtVerify = (token: string) => JwtOutcome | Promise<JwtOutcome>;

/**
 * Port for JWT verification (the jose adapter implements it). `create` runs when a route loads and
 * throws on a configuration it cannot honour (a key that does not parse, HMAC and public-key
 * algorithms mixed: the algorithm-confusion setup).
 */
export interface JwtVerifierFactory {
  create(check: JwtCheck): JwtVerify;
}
