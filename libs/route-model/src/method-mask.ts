import type { HttpMethod, Route } from './route.types';

/**
 * Methods as bits so the matcher tests "does this route allow the request's method" with one `&`.
 * Methods outside HTTP_METHODS share one bit that only routes without `methods` carry.
 */
const BITS: Readonly<Record<HttpMethod, number>> = { GET: 1, POST: 2, PUT: 4, DELETE: 8, PATCH: 16, HEAD: 32, OPTIONS: 64 };
const OTHER = 128;
export const ALL_METHODS = 0xff;

/** HEAD is answered like GET (RFC 9110 9.3.2), so a route that allows GET also matches HEAD. */
export function methodMask(methods: readonly HttpMethod[] | undefined): number {
  if (methods === undefined) return ALL_METHODS;
  let mask = 0;
  for (const method of methods) mask |= BITS[method] ?? 0;
  if ((mask & BITS.GET) !== 0) mask |= BITS.HEAD;
  return mask;
}

/**
 * The methods a route matches: its own, plus OPTIONS when it has CORS on, so the gateway answers
 * the browser's preflight for a route that lists only GET or POST (the CORS policy refuses a
 * plain OPTIONS there with 405).
 */
export function routeMethodMask(route: Pick<Route, 'methods' | 'cors'>): number {
  const mask = methodMask(route.methods);
  return route.cors !== undefined && route.cors.enabled !== false ? mask | BITS.OPTIONS : mask;
}

/** Method names are case-sensitive (RFC 9110 9.1): `get` is not GET. */
export function methodBit(method: string): number {
  switch (method) {
    case 'GET':
      return BITS.GET;
    case 'POST':
      return BITS.POST;
    case 'PUT':
      return BITS.PUT;
    case 'DELETE':
      return BITS.DELETE;
    case 'PATCH':
      return BITS.PATCH;
    case 'HEAD':
      return BITS.HEAD;
    case 'OPTIONS':
      return BITS.OPTIONS;
    default:
      return OTHER;
  }
}
