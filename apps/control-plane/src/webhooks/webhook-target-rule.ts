import dns, { type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where a webhook must not go unless OUTBOUND_ALLOW_CIDRS says so: a webhook URL is typed by an
 * admin but fetched by the server, from inside the network (SSRF). Broader than the rule for
 * route tests (upstreams live on private networks; webhook receivers are on the internet).
 */
export const WEBHOOK_REFUSED_RANGES: ReadonlyArray<{ cidr: string; what: string }> = [
  { cidr: '0.0.0.0/8', what: '"this network"' },
  { cidr: '10.0.0.0/8', what: 'a private network (RFC 1918)' },
  { cidr: '100.64.0.0/10', what: 'carrier-grade NAT space (RFC 6598)' },
  { cidr: '127.0.0.0/8', what: 'loopback' },
  { cidr: '169.254.0.0/16', what: 'link-local, where cloud metadata services answer' },
  { cidr: '172.16.0.0/12', what: 'a private network (RFC 1918)' },
  { cidr: '192.0.0.0/24', what: 'IETF protocol assignments' },
  { cidr: '192.168.0.0/16', what: 'a private network (RFC 1918)' },
  { cidr: '198.18.0.0/15', what: 'benchmarking space' },
  { cidr: '224.0.0.0/3', what: 'multicast or reserved space' },
  { cidr: '::/128', what: 'the unspecified IPv6 address' },
  { cidr: '::1/128', what: 'IPv6 loopback' },
  { cidr: 'fc00::/7', what: 'an IPv6 unique local network' },
  { cidr: 'fe80::/10', what: 'IPv6 link-local' },
  { cidr: 'ff00::/8', what: 'IPv6 multicast' },
];

/** A webhook target the rule refuses, naming the address and why. */
export class WebhookTargetRefusedError extends Error {
  readonly code = 'WEBHOOK_TARGET_REFUSED';

  constructor(host: string, address: string, what: string) {
    const via = host === address ? '' : ` (${host} resolves to it)`;
    super(`${address}${via} is ${what}: webhooks are not sent there unless OUTBOUND_ALLOW_CIDRS allows it`);
    this.name = 'WebhookTargetRefusedError';
  }
}

function addCidr(list: BlockList, cidr: string): void {
  const [address, prefix] = cidr.split('/') as [string, string | undefined];
  const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  list.addSubnet(address, prefix === undefined ? (family === 'ipv4' ? 32 : 128) : Number(prefix), family);
}

/**
 * The rule, on resolved addresses only (never on a host name): `refusal` says why an address is
 * refused, or undefined. IPv4-mapped and NAT64 IPv6 addresses (`::ffff:127.0.0.1`) are judged as
 * the IPv4 address they carry, so they cannot slip past the IPv4 ranges.
 */
export class WebhookTargetRule {
  private readonly refused: Array<{ list: BlockList; what: string }>;
  private readonly allowed = new BlockList();

  constructor(allowCidrs: readonly string[]) {
    this.refused = WEBHOOK_REFUSED_RANGES.map(({ cidr, what }) => {
      const list = new BlockList();
      addCidr(list, cidr);
      return { list, what };
    });
    for (const cidr of allowCidrs) addCidr(this.allowed, cidr);
  }

  refusal(address: string): string | undefined {
    const plain = unmapped(address.replace(/%.*$/, '').replace(/^\[(.*)\]$/, '$1'));
    const family = isIP(plain);
    if (family === 0) return 'not an IP address';
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.allowed.check(plain, type)) return undefined;
    return this.refused.find(({ list }) => list.check(plain, type))?.what;
  }
}

// IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d, RFC 6052) addresses reach the IPv4
// address they carry, so they are judged as that address.
const MAPPED_DOTTED = /^(?:::ffff|64:ff9b:):(\d{1,3}(?:\.\d{1,3}){3})$/i;
const MAPPED_HEX = /^(?:::ffff|64:ff9b:):([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

function unmapped(address: string): string {
  const dotted = MAPPED_DOTTED.exec(address);
  if (dotted !== null) return dotted[1] as string;
  const hex = MAPPED_HEX.exec(address);
  if (hex === null) return address;
  const high = parseInt(hex[1] as string, 16);
  const low = parseInt(hex[2] as string, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

export type Resolver = (hostname: string, options: LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * The `lookup` of the webhook socket: resolves (dns.lookup, or `resolve` in tests), then refuses
 * when any resolved address is refused. The check is on what the socket connects to, so a name
 * that answers a public address to one query and a private one to the next (DNS rebinding)
 * is judged on the one actually used. IP literals never reach `lookup`: see `checkLiteralTarget`.
 */
export function refusingLookup(rule: WebhookTargetRule, resolve: Resolver = dns.lookup as Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) {
        callback(error, '');
        return;
      }
      for (const entry of addresses) {
        const why = rule.refusal(entry.address);
        if (why !== undefined) {
          callback(new WebhookTargetRefusedError(hostname, entry.address, why), '');
          return;
        }
      }
      if (options.all === true) callback(null, addresses);
      else callback(null, addresses[0]?.address ?? '', addresses[0]?.family);
    });
  };
}

/** net.connect skips `lookup` for an IP literal, so a literal host is judged here before connecting. */
export function checkLiteralTarget(rule: WebhookTargetRule, url: URL): void {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) === 0) return;
  const why = rule.refusal(host);
  if (why !== undefined) throw new WebhookTargetRefusedError(host, host, why);
}
