import type { IncomingHttpHeaders } from 'node:http';

/**
 * The credential a request presents, as sent: `Authorization` when present, else a non-empty
 * `X-API-Key` (decision 22 lets a key travel in either). One reading for the policies that only
 * need to know whether, or which, credential came (the cache's safety rule, the rate limiter's
 * `user` scope on routes without gateway auth); authentication parses it (auth.policy.ts).
 */
export function presentedCredential(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (authorization !== undefined) return authorization;
  const apiKey = headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey !== '' ? apiKey : undefined;
}
