import { BlockList, isIP } from 'node:net';

/** The X-Forwarded-For header as node:http hands it over (repeated headers may come as a list). */
export type ForwardedFor = string | readonly string[] | undefined;

/** The client address of one request, from its socket peer and its X-Forwarded-For header. */
export type ClientAddress = (peer: string, forwardedFor: ForwardedFor) => string;

/** Addresses whose trust is remembered per compiled list (the memo starts over when it holds this many). */
const TRUST_MEMO_SIZE = 10_000;

/**
 * The client address limits count by (the data plane's `proxy.trustedProxies`, the control plane's
 * TRUSTED_PROXIES). The socket peer, unless that peer is one of `trustedProxies`: then
 * X-Forwarded-For is read right to left, trusted hops skipped, and the first untrusted entry is the
 * client. Entries left of it were written by the client itself and are never believed, so a
 * spoofed X-Forwarded-For never changes the key. Entries are IPs or CIDRs, already validated
 * (route-model's ipOrCidr rule); compiled once, outside the request path.
 */
export function compileClientAddress(trustedProxies: readonly string[]): ClientAddress {
  if (trustedProxies.length === 0) return (peer) => peer;
  const isTrusted = compileTrustedProxyCheck(trustedProxies);
  return (peer, forwardedFor) => {
    if (!isTrusted(peer) || forwardedFor === undefined) return peer;
    const hops = (typeof forwardedFor === 'string' ? forwardedFor : forwardedFor.join(',')).split(',');
    for (let i = hops.length - 1; i >= 0; i -= 1) {
      const hop = stripPort((hops[i] as string).trim());
      if (isTrusted(hop)) continue;
      // The first untrusted hop was written by a trusted proxy; garbage there means a broken proxy.
      return isIP(hop) === 0 ? peer : hop;
    }
    return peer;
  };
}

/**
 * Whether an address is one of `trustedProxies` (IPs or CIDRs, already validated); compiled once.
 * Also what decides whether a proxy's X-Forwarded-Proto is believed (the control plane's Secure
 * session cookie).
 */
export function compileTrustedProxyCheck(trustedProxies: readonly string[]): (address: string) => boolean {
  return compileAddressSet(trustedProxies);
}

/**
 * Whether an address is in a list of IPs and CIDRs (already validated, IPv4 and IPv6; an
 * IPv4-mapped IPv6 peer such as ::ffff:10.0.0.1 matches IPv4 entries); compiled once. Trusted
 * proxies and the data plane's per-route IP allow/deny lists use it.
 */
export function compileAddressSet(entries: readonly string[]): (address: string) => boolean {
  if (entries.length === 0) return () => false;
  const trusted = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) trusted.addAddress(address, family);
    else trusted.addSubnet(address, Number(prefix), family);
  }
  // BlockList.check builds a SocketAddress per call, a visible share of a refused request's cost
  // (issue 11 bench); the same few proxies and clients come again and again.
  // A plain Map dropped whole when full: no per-entry eviction cost (see the data plane's
  // GenerationalCache for why deleting single Map keys is slow under churn).
  let memo = new Map<string, boolean>();
  return (address: string): boolean => {
    const known = memo.get(address);
    if (known !== undefined) return known;
    const family = isIP(address);
    const answer = family !== 0 && trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
    if (memo.size >= TRUST_MEMO_SIZE) memo = new Map();
    memo.set(address, answer);
    return answer;
  };
}

/** `1.2.3.4:5678` and `[::1]:80` forms some proxies write. */
function stripPort(hop: string): string {
  if (hop.startsWith('[')) return hop.slice(1, hop.indexOf(']'));
  const colon = hop.indexOf(':');
  return colon > 0 && hop.indexOf(':', colon + 1) === -1 ? hop.slice(0, colon) : hop;
}
