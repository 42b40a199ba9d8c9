import { BlockList, isIP } from 'node:net';

/** One range requests made on an admin's behalf do not reach by default, and why. */
export interface RefusedRange {
  readonly cidr: string;
  readonly what: string;
}

/**
 * Where a server-side request forgery through the gateway would hurt: the cloud metadata services
 * hand out the instance's credentials to any local caller (the Capital One breach went through
 * 169.254.169.254). Loopback and private networks stay reachable: upstreams live there.
 */
export const REFUSED_BY_DEFAULT: readonly RefusedRange[] = [
  { cidr: '169.254.0.0/16', what: 'IPv4 link-local, where cloud metadata services answer (169.254.169.254 on AWS, GCP, Azure, OCI; 169.254.170.2 on ECS)' },
  { cidr: 'fe80::/10', what: 'IPv6 link-local' },
  { cidr: 'fd00:ec2::254/128', what: 'the AWS metadata service over IPv6' },
  { cidr: 'fd20:ce::254/128', what: 'the Google Cloud metadata service over IPv6' },
  { cidr: '100.100.100.200/32', what: 'the Alibaba Cloud metadata service' },
  { cidr: '168.63.129.16/32', what: 'the Azure platform endpoint (WireServer)' },
];

/** The variable that lists exceptions (documented in docs/deployment.md). */
export const OUTBOUND_ALLOW_VARIABLE = 'OUTBOUND_ALLOW_CIDRS';

export interface Cidr {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

export type CidrListParse = { ok: true; cidrs: Cidr[] } | { ok: false; message: string };

/**
 * `OUTBOUND_ALLOW_CIDRS`: comma- or space-separated CIDRs (`169.254.169.254/32`, `fe80::/10`) or
 * single addresses. The message names the first bad entry.
 */
export function parseCidrList(text: string | undefined): CidrListParse {
  const cidrs: Cidr[] = [];
  for (const entry of (text ?? '').split(/[\s,]+/).filter((part) => part !== '')) {
    const slash = entry.indexOf('/');
    const address = slash === -1 ? entry : entry.slice(0, slash);
    const version = isIP(address);
    if (version === 0) return { ok: false, message: `"${entry}" is not an IP address or CIDR (e.g. 169.254.169.254/32, fd00::/8)` };
    const max = version === 4 ? 32 : 128;
    const prefixText = slash === -1 ? String(max) : entry.slice(slash + 1);
    const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
    if (!(prefix >= 0 && prefix <= max)) return { ok: false, message: `"${entry}" has a prefix length outside 0-${max}` };
    cidrs.push({ address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' });
  }
  return { ok: true, cidrs };
}

/** Why an address is refused: the range it falls in. */
export interface OutboundRefusal {
  readonly address: string;
  readonly range: RefusedRange;
}

/** 64:ff9b::/96 (RFC 6052): a NAT64 gateway would carry it to the embedded IPv4 address. */
const NAT64_HEX = /^64:ff9b::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;
const NAT64_DOTTED = /^64:ff9b::(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * The outbound-target rule: which resolved addresses the gateway may connect to when it makes a
 * request for an admin (route tests, active health checks, webhooks). Pure: callers check
 * the address a socket is about to connect to (see refusingLookup), never a host name.
 */
export class OutboundAddressRule {
  private readonly ranges: Array<{ list: BlockList; range: RefusedRange }> = [];
  private readonly allowed = new BlockList();

  /**
   * `refused`: REFUSED_BY_DEFAULT (route tests, health checks), REFUSED_UNLESS_PUBLIC (webhooks), or
   * in tests loopback, to see a real socket refused.
   */
  constructor(allow: readonly Cidr[] = [], refused: readonly RefusedRange[] = REFUSED_BY_DEFAULT) {
    for (const range of refused) {
      const list = new BlockList();
      const [address, prefix] = range.cidr.split('/') as [string, string];
      // Read from the text, not isIP(): its first IPv6 call compiles node's IPv6 pattern (~20 ms of
      // CPU), which every data plane paid at start; addSubnet still rejects a malformed address.
      list.addSubnet(address, Number(prefix), address.includes(':') ? 'ipv6' : 'ipv4');
      this.ranges.push({ list, range });
    }
    for (const cidr of allow) this.allowed.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }

  /** undefined when the gateway may connect to `address` (an IP literal; anything else is refused). */
  refusal(address: string): OutboundRefusal | undefined {
    const normalized = normalizeAddress(address);
    const family = isIP(normalized);
    if (family === 0) return { address, range: { cidr: '-', what: 'not an IP address' } };
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.allowed.check(normalized, type)) return undefined;
    // BlockList matches IPv4-mapped IPv6 (::ffff:a.b.c.d) against IPv4 subnets itself.
    const hit = this.ranges.find(({ list }) => list.check(normalized, type));
    return hit === undefined ? undefined : { address, range: hit.range };
  }
}

/** Without an IPv6 zone (`fe80::1%eth0`) and with a NAT64 address as the IPv4 address it carries. */
function normalizeAddress(address: string): string {
  const unzoned = address.replace(/%.*$/, '').replace(/^\[(.*)\]$/, '$1');
  const dotted = NAT64_DOTTED.exec(unzoned);
  if (dotted !== null) return dotted[1] as string;
  const nat64 = NAT64_HEX.exec(unzoned);
  if (nat64 === null) return unzoned;
  const high = parseInt(nat64[1] as string, 16);
  const low = parseInt(nat64[2] as string, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}
