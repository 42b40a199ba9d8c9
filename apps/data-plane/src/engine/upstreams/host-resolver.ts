import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * `ip`, `ip:port` or `[ipv6]:port` entries, comma-separated; undefined or empty: the system's
 * resolvers. Throws naming `variable` and the bad entry, so a typo stops the start.
 */
export function parseDnsServers(text: string | undefined, variable: string): string[] | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  return text.split(',').map((raw) => {
    const entry = raw.trim();
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([0-9.]+))(?::(\d{1,5}))?$/.exec(entry) ?? /^([0-9A-Fa-f:.]+)$/.exec(entry);
    const ip = match?.[1] ?? match?.[2];
    const port = match?.[3] === undefined ? undefined : Number(match[3]);
    if (ip === undefined || isIP(ip) === 0 || (port !== undefined && (port < 1 || port > 65_535))) {
      throw new Error(`${variable}: '${entry}' is not an IP address, ip:port or [ipv6]:port`);
    }
    return entry;
  });
}

/** One answer: the addresses a name has now, and how long they may be kept. */
export interface ResolvedHost {
  /** Sorted, so an unchanged answer compares equal. */
  readonly addresses: readonly string[];
  readonly ttlMs: number;
}

/** A query never holds a refresh longer than this (c-ares retries within it). */
const QUERY_TIMEOUT_MS = 2000;

/**
 * Looks up A and AAAA records with their TTLs over DNS (node's c-ares Resolver), so that a name
 * behind which addresses come and go (a Kubernetes headless service that scales) is followed
 * address by address. `servers` replaces the system's resolvers (GATEWAY_DNS_SERVERS, for tests
 * and special setups: docs/upstreams.md).
 */
export class HostResolver {
  private readonly resolver: Resolver;

  constructor(servers: readonly string[] | undefined) {
    this.resolver = new Resolver({ timeout: QUERY_TIMEOUT_MS, tries: 2 });
    if (servers !== undefined && servers.length > 0) this.resolver.setServers([...servers]);
  }

  /**
   * Host names worth a DNS query: not IP literals, and not `localhost` (node's own lookup reads
   * /etc/hosts for it, and DNS would only say it does not exist).
   */
  static needsResolution(hostname: string): boolean {
    return isIP(hostname) === 0 && hostname !== 'localhost';
  }

  /** The name's addresses, or undefined when DNS has none (the name is then dialled as it is). */
  async resolve(hostname: string): Promise<ResolvedHost | undefined> {
    const answers = await Promise.allSettled([this.resolver.resolve4(hostname, { ttl: true }), this.resolver.resolve6(hostname, { ttl: true })]);
    const records = answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
    if (records.length === 0) return undefined;
    const addresses = [...new Set(records.map((r) => r.address))].sort();
    return { addresses, ttlMs: Math.min(...records.map((r) => r.ttl)) * 1000 };
  }

  cancel(): void {
    this.resolver.cancel();
  }
}
