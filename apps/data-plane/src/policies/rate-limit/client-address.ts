import { BlockList, isIP } from 'node:net';
import type { Exchange } from '../../engine/exchange';
import { GenerationalCache } from '../../engine/generational-cache';

/** Addresses whose trust is remembered (per compiled list; two generations of this many). */
const TRUST_MEMO_PER_GENERATION = 5_000;

/**
 * The client address rate limits count by. The socket peer, unless that peer is one of
 * `proxy.trustedProxies`: then X-Forwarded-For is read right to left, trusted hops skipped, and the
 * first untrusted entry is the client. Entries left of it were written by the client itself and are
 * never believed, so a spoofed X-Forwarded-For never changes the key.
 */
export function compileClientAddress(trustedProxies: readonly string[]): (exchange: Exchange) => string {
  if (trustedProxies.length === 0) return (exchange) => exchange.clientIp;
  const trusted = new BlockList();
  for (const entry of trustedProxies) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) trusted.addAddress(address, family);
    else trusted.addSubnet(address, Number(prefix), family);
  }
  // BlockList.check builds a SocketAddress per call, a visible share of a refused request's cost
  // (issue 11 bench); the same few proxies and clients come again and again.
  const memo = new GenerationalCache<string, boolean>(TRUST_MEMO_PER_GENERATION);
  const isTrusted = (address: string): boolean => {
    const known = memo.get(address);
    if (known !== undefined) return known;
    const family = isIP(address);
    const answer = family !== 0 && trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
    memo.set(address, answer);
    return answer;
  };
  return (exchange) => {
    const peer = exchange.clientIp;
    if (!isTrusted(peer)) return peer;
    const header = exchange.req.headers['x-forwarded-for'];
    if (header === undefined) return peer;
    const hops = (Array.isArray(header) ? header.join(',') : header).split(',');
    for (let i = hops.length - 1; i >= 0; i -= 1) {
      const hop = stripPort((hops[i] as string).trim());
      if (isTrusted(hop)) continue;
      // The first untrusted hop was written by a trusted proxy; garbage there means a broken proxy.
      return isIP(hop) === 0 ? peer : hop;
    }
    return peer;
  };
}

/** `1.2.3.4:5678` and `[::1]:80` forms some proxies write. */
function stripPort(hop: string): string {
  if (hop.startsWith('[')) return hop.slice(1, hop.indexOf(']'));
  const colon = hop.indexOf(':');
  return colon > 0 && hop.indexOf(':', colon + 1) === -1 ? hop.slice(0, colon) : hop;
}
