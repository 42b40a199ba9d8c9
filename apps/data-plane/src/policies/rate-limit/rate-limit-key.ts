import { createHash } from 'node:crypto';
import type { RateLimitConfig } from '@gateway/route-model';
import type { Exchange } from '../../engine/exchange';
import { GenerationalCache } from '../../engine/generational-cache';
import { presentedCredential } from '../../engine/presented-credential';

/** Credentials are never used as keys as they are: a short digest stands for them. */
function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 22);
}

/** Client-chosen values are bounded so a key can never grow the store's memory per entry. */
function bounded(value: string): string {
  return value.length <= 64 && !value.includes(' ') ? value : `#${digest(value)}`;
}

function apiKeyOf(exchange: Exchange): string | undefined {
  const header = exchange.req.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header;
  const authorization = exchange.req.headers.authorization;
  if (authorization !== undefined && /^apikey /i.test(authorization)) return authorization.slice(7).trim();
  return undefined;
}

function cookieOf(exchange: Exchange, name: string): string | undefined {
  const header = exchange.req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A claim of the bearer JWT, read without verifying it (see docs/resilience.md). */
function claimOf(exchange: Exchange, name: string): string | undefined {
  const authorization = exchange.req.headers.authorization;
  if (authorization === undefined || !/^bearer /i.test(authorization)) return undefined;
  const payload = authorization.slice(7).trim().split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const value = claims[name];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Scope `user` (docs/resilience.md). Authentication runs first (order 100 < 120), so on a route
 * with gateway auth the caller is the identity it established: an API key's id (a key is a client
 * of its own, docs/api-keys.md), else the user id (JWT `sub`, session user, Basic user name). A new
 * token of the same subject therefore spends the same allowance. An anonymous caller, or a token
 * naming nobody, is counted by its address. Only a route without gateway auth falls back to a
 * digest of the credential as sent (nothing vouches for who is behind it), and to the address
 * without one.
 */
function userKey(byIp: (exchange: Exchange) => string): (exchange: Exchange) => string {
  return (exchange) => {
    const identity = exchange.identity;
    if (identity !== undefined) {
      if (identity.keyId !== undefined) return `apikey:${bounded(identity.keyId)}`;
      if (identity.userId !== undefined) return `user:${bounded(identity.userId)}`;
      return byIp(exchange);
    }
    const credential = presentedCredential(exchange.req.headers);
    return credential === undefined || credential === '' ? byIp(exchange) : `credential:${digest(credential)}`;
  };
}

/** Derived key strings kept per rate-limited route (two generations of this many): varying keys (a flood of addresses) cannot grow it. */
export const DERIVED_KEYS_PER_GENERATION = 512;

const ipScope = (address: string): string => `ip:${address}`;

/**
 * Compiles a route's scope (or key expression) into a function giving the counted key's scope part:
 * `ip:<addr>`, `route`, `user:<id>`, `key:<digest>`, `header:<name>=<value>` ... A request
 * without the scoped value (no credential, no header) is counted by its client address instead.
 */
export function compileScopeKey(config: RateLimitConfig, clientAddress: (exchange: Exchange) => string): (exchange: Exchange) => string {
  // The same scope string for the same address: a new `ip:` string each request was hashed again by
  // every Map it is looked up in (the store, the usage sketches), where a cached one keeps its hash.
  const scopes = new GenerationalCache<string, string>(DERIVED_KEYS_PER_GENERATION);
  const byIp = (exchange: Exchange): string => scopes.getOrAdd(clientAddress(exchange), ipScope);
  if (config.keyExpression !== undefined) {
    const colon = config.keyExpression.indexOf(':');
    const kind = config.keyExpression.slice(0, colon);
    const name = config.keyExpression.slice(colon + 1);
    const lower = name.toLowerCase();
    const read: (exchange: Exchange) => string | undefined =
      kind === 'header'
        ? (e) => {
            const value = e.req.headers[lower];
            return Array.isArray(value) ? value.join(',') : value;
          }
        : kind === 'query'
          ? (e) => new URLSearchParams(e.query).get(name) ?? undefined
          : kind === 'cookie'
            ? (e) => cookieOf(e, name)
            : (e) => claimOf(e, name);
    return (exchange) => {
      const value = read(exchange);
      return value === undefined || value === '' ? byIp(exchange) : `${kind}:${lower}=${bounded(value)}`;
    };
  }
  switch (config.scope) {
    case 'ip':
      return byIp;
    case 'route':
      return () => 'route';
    case 'user':
      return userKey(byIp);
    case 'apiKey':
      return (exchange) => {
        const key = apiKeyOf(exchange);
        return key === undefined ? byIp(exchange) : `key:${digest(key)}`;
      };
  }
}
