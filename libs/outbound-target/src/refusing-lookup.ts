import dns, { type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { OUTBOUND_ALLOW_VARIABLE, type OutboundAddressRule, type OutboundRefusal } from './outbound-address-rule';

/** A request on an admin's behalf to an address the outbound-target rule refuses. */
export class OutboundTargetRefusedError extends Error implements NodeJS.ErrnoException {
  readonly code = 'OUTBOUND_TARGET_REFUSED';

  constructor(
    readonly host: string,
    readonly refusal: OutboundRefusal,
  ) {
    const via = host === refusal.address ? '' : ` (${host} resolves to it)`;
    super(`${refusal.address}${via} is ${refusal.range.what} (${refusal.range.cidr}): the gateway does not send requests there on an admin's behalf; ${OUTBOUND_ALLOW_VARIABLE} lists exceptions`);
    this.name = 'OutboundTargetRefusedError';
  }
}

/** dns.lookup's shape with `all: true`; tests pass their own to play a rebinding DNS server. */
export type Resolver = (hostname: string, options: LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * A `lookup` for http.request, net.connect or an Agent: resolves as dns.lookup does, then refuses
 * the name when any address it resolves to is refused. The check runs on what the socket will
 * connect to, so a name that points at 169.254.169.254 (or rebinds to it) is caught too.
 */
export function refusingLookup(rule: OutboundAddressRule, resolve: Resolver = dns.lookup as Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true } as LookupAllOptions, (error, addresses) => {
      if (error !== null) {
        callback(error, '');
        return;
      }
      for (const entry of addresses) {
        const refusal = rule.refusal(entry.address);
        if (refusal !== undefined) {
          callback(new OutboundTargetRefusedError(hostname, refusal), '');
          return;
        }
      }
      if (options.all === true) callback(null, addresses);
      else callback(null, addresses[0]?.address ?? '', addresses[0]?.family);
    });
  };
}

/** net.connect never calls `lookup` for an IP literal, so a literal host is judged here; throws OutboundTargetRefusedError. */
export function refuseLiteralTarget(rule: OutboundAddressRule, url: URL): void {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) === 0) return;
  const refusal = rule.refusal(host);
  if (refusal !== undefined) throw new OutboundTargetRefusedError(host, refusal);
}

/**
 * Connect options for a request to `url` on an admin's behalf: a literal is checked at once, a
 * name on each address it resolves to; throws OutboundTargetRefusedError.
 */
export function outboundConnectOptions(rule: OutboundAddressRule, url: URL, resolve?: Resolver): { lookup: LookupFunction } {
  refuseLiteralTarget(rule, url);
  return { lookup: refusingLookup(rule, resolve) };
}
