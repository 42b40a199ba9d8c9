/**
 * Headers through which gateway authentication tells the upstream who the caller is
 * (docs/edge-policies.md). Reserved: a client's copy is removed from every upstream request, on
 * every route, so an upstream can trust them whenever they are present.
 */
export const IDENTITY_HEADERS = {
  scheme: 'x-gateway-auth',
  userId: 'x-gateway-user-id',
  userEmail: 'x-gateway-user-email',
  userRole: 'x-gateway-user-role',
  keyId: 'x-gateway-key-id',
} as const;

const IDENTITY_NAMES: ReadonlySet<string> = new Set(Object.values(IDENTITY_HEADERS));
const SHORTEST = Math.min(...[...IDENTITY_NAMES].map((name) => name.length));
const LONGEST = Math.max(...[...IDENTITY_NAMES].map((name) => name.length));
const UNDERSCORES = /_/g;

/**
 * Whether a (lower-case) request header name is a client's copy of an identity header, including
 * spellings with `_` for `-` (`x_gateway_user_id`): WSGI, Rack and PHP upstreams read both as the
 * same header, which is why nginx drops underscored names by default. Checked while the request
 * headers are copied (no second pass over them); most names fail the length or first letter.
 */
export function isClientIdentityHeader(name: string): boolean {
  if (name.length < SHORTEST || name.length > LONGEST || name.charCodeAt(0) !== 120 /* x */) return false;
  return IDENTITY_NAMES.has(name) || IDENTITY_NAMES.has(name.replace(UNDERSCORES, '-'));
}

/** Visible ASCII except `%`: carried as is. */
const PLAIN = /^[\x21-\x24\x26-\x7e]*$/;
const NOT_PLAIN = /[^\x21-\x24\x26-\x7e]/gu;

/**
 * An identity value as a header can carry it without losing what tells two identities apart:
 * visible ASCII stays, `%`, space, controls and non-ASCII become percent-encoded UTF-8 (RFC 3986
 * style), so `josé` and `josè` stay different and `admin\u200b` is not `admin`. Upstreams that
 * allow such identities decode with their URI decoder; plain ASCII ids arrive unchanged.
 */
export function identityHeaderValue(value: string): string {
  if (PLAIN.test(value)) return value;
  return value.replace(NOT_PLAIN, (char) => {
    let out = '';
    for (const byte of Buffer.from(char, 'utf8')) out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
    return out;
  });
}
