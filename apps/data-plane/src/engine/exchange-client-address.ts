import { compileClientAddress } from '@gateway/client-address';
import type { Exchange } from './exchange';

/**
 * The client address limits and refusals count by, read from an exchange: its socket peer and
 * X-Forwarded-For through `proxy.trustedProxies` (@gateway/client-address). Compiled when routes
 * load; one reading for the rate limiter and the auth policy's failed-credential limit.
 */
export function compileExchangeClientAddress(trustedProxies: readonly string[]): (exchange: Exchange) => string {
  const clientAddress = compileClientAddress(trustedProxies);
  return (exchange) => clientAddress(exchange.clientIp, exchange.req.headers['x-forwarded-for']);
}
