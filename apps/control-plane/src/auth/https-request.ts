import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { compileTrustedProxyCheck } from '@gateway/client-address';

/**
 * Whether the browser reached us over HTTPS: our own TLS socket, or a trusted proxy
 * (TRUSTED_PROXIES) that says so in X-Forwarded-Proto (the last value, the one it wrote). From
 * anyone else the header is ignored. Decides the session cookies' Secure attribute.
 */
export function compileHttpsCheck(trustedProxies: readonly string[]): (req: IncomingMessage) => boolean {
  const isTrusted = compileTrustedProxyCheck(trustedProxies);
  return (req) => {
    if ((req.socket as Partial<TLSSocket>).encrypted === true) return true;
    const peer = req.socket.remoteAddress;
    if (peer === undefined || !isTrusted(peer)) return false;
    const header = req.headers['x-forwarded-proto'];
    const values = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
    return values[values.length - 1]?.trim().toLowerCase() === 'https';
  };
}
