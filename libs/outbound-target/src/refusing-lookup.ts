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

/**
 * A `lookup` for http.request, net.connect or an Agent: resolves as dns.lookup does, then refuses
 * the name when any address it resolves to is refused. The check runs on what the socket will
 * connect to, so a name that points at 169.254.169.254 (or rebinds to it) is caught too.
 */
export function refusingLookup(rule: OutboundAddressRule): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true } as LookupAllOptions, (error, addresses: LookupAddress[]) => {
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

/**
 * Connect options for a request to `url` on an admin's behalf. net.connect never calls `lookup`
 * for an IP literal, so a literal is checked here; throws OutboundTargetRefusedError.
 */
export function outboundConnectOptions(rule: OutboundAddressRule, url: URL): { lookup: LookupFunction } {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) {
    const refusal = rule.refusal(host);
    if (refusal !== undefined) throw new OutboundTargetRefusedError(host, refusal);
  }
  return { lookup: refusingLookup(rule) };
}
