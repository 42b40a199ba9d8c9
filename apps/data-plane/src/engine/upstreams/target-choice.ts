import type { CompiledRoute } from '../compiled-route';
import type { Exchange } from '../exchange';
import type { UpstreamTarget } from '../upstream-target';
import type { UpstreamGroup } from './upstream-group';

/**
 * Where one attempt of a route that names an upstream goes, chosen just before the upstream call:
 * the balancer's endpoint, dialled through a lean-client pool and sent with the target's Host.
 * A route whose upstream is a plain URL, or names one the registry no longer has, keeps its
 * compiled target. Each attempt releases the previous one's endpoint and avoids it while another
 * is available, so a retry goes to another target.
 */
export function chooseTarget(exchange: Exchange, route: CompiledRoute): UpstreamTarget {
  const balanced = route.balanced;
  const group = balanced === undefined ? undefined : balanced.registry.group(balanced.name);
  if (group === undefined) return route.upstream;
  const previous = exchange.upstreamEndpoint;
  if (previous !== undefined) {
    releaseTarget(exchange);
    (exchange.triedEndpoints ??= []).push(previous);
  }
  const endpoint = group.choose(hashKeyOf(exchange, group), exchange.triedEndpoints);
  if (endpoint === undefined) return route.upstream;
  endpoint.inFlight += 1;
  exchange.upstreamEndpoint = endpoint;
  exchange.upstreamGroup = group;
  // A Host a request policy set on purpose stays; the compiled default becomes the target's.
  if (exchange.upstreamHeaders.host === route.upstream.hostHeader) exchange.upstreamHeaders.host = endpoint.target.hostPort;
  return endpoint.dialFor(route.upstream, (balanced as NonNullable<typeof balanced>).pools);
}

/**
 * The attempt's outcome for outlier detection: a connection error, a timeout or a 5xx is a
 * failure. An attempt cut because the client left says nothing about the target.
 */
export function settleTarget(exchange: Exchange, failed: boolean): void {
  const endpoint = exchange.upstreamEndpoint;
  if (endpoint === undefined || exchange.clientAborted) return;
  exchange.upstreamGroup?.record(endpoint, failed);
}

/** The exchange is over (or moves to another attempt): its endpoint has one request less in flight. */
export function releaseTarget(exchange: Exchange): void {
  const endpoint = exchange.upstreamEndpoint;
  if (endpoint === undefined) return;
  endpoint.inFlight -= 1;
  exchange.upstreamEndpoint = undefined;
}

/** The consistent-hash key: the configured header or cookie, else (or when absent) the client address, as Kong falls back. */
function hashKeyOf(exchange: Exchange, group: UpstreamGroup): string | undefined {
  const { balancing, hashName } = group;
  if (balancing.algorithm !== 'consistent-hash') return undefined;
  if (hashName !== undefined) {
    const value = balancing.hashOn === 'cookie' ? cookieValue(exchange.req.headers.cookie, balancing.hashKey as string) : exchange.req.headers[hashName];
    const text = Array.isArray(value) ? value.join(',') : value;
    if (text !== undefined && text !== '') return text;
  }
  return exchange.clientIp;
}

/** One cookie's value from a Cookie header (RFC 6265 5.4: `name=value; name2=value2`; names are case-sensitive). */
function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq !== -1 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}
