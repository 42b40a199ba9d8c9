import { REFUSED_BY_DEFAULT, type RefusedRange } from './outbound-address-rule';

/**
 * Loopback, private and reserved space. Route tests and health checks reach these (upstreams live
 * there); requests whose targets are on the internet by nature (webhooks) refuse them too, since a
 * target an admin types is fetched from inside the network.
 */
export const PRIVATE_RANGES: readonly RefusedRange[] = [
  { cidr: '0.0.0.0/8', what: '"this network"' },
  { cidr: '10.0.0.0/8', what: 'a private network (RFC 1918)' },
  { cidr: '100.64.0.0/10', what: 'carrier-grade NAT space (RFC 6598)' },
  { cidr: '127.0.0.0/8', what: 'loopback' },
  { cidr: '172.16.0.0/12', what: 'a private network (RFC 1918)' },
  { cidr: '192.0.0.0/24', what: 'IETF protocol assignments' },
  { cidr: '192.168.0.0/16', what: 'a private network (RFC 1918)' },
  { cidr: '198.18.0.0/15', what: 'benchmarking space' },
  { cidr: '224.0.0.0/3', what: 'multicast or reserved space' },
  { cidr: '::/128', what: 'the unspecified IPv6 address' },
  { cidr: '::1/128', what: 'IPv6 loopback' },
  { cidr: 'fc00::/7', what: 'an IPv6 unique local network' },
  { cidr: 'ff00::/8', what: 'IPv6 multicast' },
];

/**
 * The rule's second argument for targets that must be public: the default ranges (metadata and
 * link-local, named as such) first, then the private ones; OUTBOUND_ALLOW_CIDRS opens both.
 */
export const REFUSED_UNLESS_PUBLIC: readonly RefusedRange[] = [...REFUSED_BY_DEFAULT, ...PRIVATE_RANGES];
