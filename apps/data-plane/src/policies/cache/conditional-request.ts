import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

function text(value: OutgoingHttpHeaders[string]): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/** An entity tag without its weak prefix: If-None-Match uses the weak comparison (RFC 9110 8.8.3.2). */
function opaqueTag(tag: string): string {
  const trimmed = tag.trim();
  return trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed;
}

/**
 * The conditional headers that revalidate a stored response (RFC 9111 4.3.1): its ETag as
 * If-None-Match, its Last-Modified as If-Modified-Since. The client's own conditionals are
 * replaced, not merged: the answer must be about the stored response, and the gateway then
 * evaluates the client's conditionals against the refreshed entry.
 */
export function setRevalidationHeaders(upstreamHeaders: OutgoingHttpHeaders, stored: OutgoingHttpHeaders): void {
  delete upstreamHeaders['if-none-match'];
  delete upstreamHeaders['if-modified-since'];
  delete upstreamHeaders['if-match'];
  delete upstreamHeaders['if-unmodified-since'];
  delete upstreamHeaders['if-range'];
  const etag = text(stored['etag']);
  const lastModified = text(stored['last-modified']);
  if (etag !== undefined) upstreamHeaders['if-none-match'] = etag;
  if (lastModified !== undefined) upstreamHeaders['if-modified-since'] = lastModified;
}

/**
 * True when the client's If-None-Match (or, without one, If-Modified-Since) says it already has
 * the stored response (RFC 9110 13.1.2, 13.1.3, 13.2.2): the gateway answers 304 itself.
 */
export function clientHasStored(request: IncomingHttpHeaders, stored: OutgoingHttpHeaders): boolean {
  const ifNoneMatch = request['if-none-match'];
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch.trim() === '*') return true;
    const etag = text(stored['etag']);
    if (etag === undefined) return false;
    const current = opaqueTag(etag);
    return ifNoneMatch.split(',').some((tag) => opaqueTag(tag) === current);
  }
  const ifModifiedSince = request['if-modified-since'];
  const lastModified = text(stored['last-modified']);
  if (ifModifiedSince === undefined || lastModified === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  const modified = Date.parse(lastModified);
  return !Number.isNaN(since) && !Number.isNaN(modified) && modified <= since;
}

/** Fields a 304 must not change in the stored response (RFC 9111 3.2: Content-Length; plus what the cache never stores). */
const KEPT_ON_REFRESH = new Set(['content-length', 'age', 'date', 'x-cache', 'x-correlation-id']);

/**
 * The stored response's headers updated from a 304 (RFC 9111 4.3.4 and 3.2): every field the 304
 * carries replaces the stored one, except Content-Length and what the cache never stores.
 * `notModified` holds end-to-end fields only (the caller dropped hop-by-hop ones).
 */
export function refreshedHeaders(stored: OutgoingHttpHeaders, notModified: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { ...stored };
  for (const name in notModified) {
    if (KEPT_ON_REFRESH.has(name)) continue;
    const value = notModified[name];
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}
