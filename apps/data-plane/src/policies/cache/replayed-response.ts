import type { OutgoingHttpHeaders } from 'node:http';
import type { Exchange } from '../../engine/exchange';
import { UpstreamResponse } from '../../engine/upstream-response';

/**
 * A stored response handed back by the cache's upstream wrapper in place of the upstream's answer
 * (a 304 that refreshed the entry, a failure that stale-if-error covers, a stale answer while a
 * refresh runs). An upstream wrapper answers with a response or an error, so the stored response
 * takes the shape of a complete upstream response; the dispatcher and the route's response phase
 * then treat it like any other.
 */
export function replayedResponse(exchange: Exchange, status: number, headers: OutgoingHttpHeaders, body: Buffer | undefined): UpstreamResponse {
  const rawHeaders: string[] = [];
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const one of value) rawHeaders.push(name, one);
    else rawHeaders.push(name, typeof value === 'number' ? String(value) : value);
  }
  return UpstreamResponse.complete(exchange, status, rawHeaders, body);
}
