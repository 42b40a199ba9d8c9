import type { IncomingMessage } from 'node:http';
import type { GatewayErrorCode } from './error-catalogue';

export interface RequestTarget {
  path: string;
  /** With its leading `?`, or ''. */
  query: string;
}

// reg-name / IPv4 or [IPv6], optional port (RFC 9110 7.2, RFC 3986 3.2.2).
const VALID_HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-._~]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** A Host value of the form RFC 9110 7.2 allows (no user info, no path). */
export function isWellFormedHost(host: string): boolean {
  return VALID_HOST.test(host);
}

const VALIDATED_HOST = Symbol('gateway.validatedHost');
type HostCachingSocket = IncomingMessage['socket'] & { [VALIDATED_HOST]?: string };

/** A keep-alive connection usually repeats its Host: the last valid one is remembered per socket. */
function isValidHost(req: IncomingMessage, host: string): boolean {
  const socket = req.socket as HostCachingSocket;
  if (socket[VALIDATED_HOST] === host) return true;
  if (!VALID_HOST.test(host)) return false;
  socket[VALIDATED_HOST] = host;
  return true;
}

/**
 * Checks what node:http lets through but a gateway must not: a duplicate or malformed Host,
 * Transfer-Encoding on HTTP/1.0 (request smuggling), and absolute-form targets naming another host.
 * Returns the path and query to route on, or the error code to answer with.
 */
export function readRequestTarget(req: IncomingMessage): RequestTarget | GatewayErrorCode {
  const raw = req.rawHeaders;
  let hostCount = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') hostCount += 1;
  }
  const host = req.headers.host;
  if (hostCount > 1) return 'INVALID_HOST';
  // node's own check (requireHostHeader) would answer with a bare 400; RFC 9112 3.2 requires it on 1.1.
  if (host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) return 'INVALID_HOST';
  if (host !== undefined && !isValidHost(req, host)) return 'INVALID_HOST';
  if (req.httpVersionMinor === 0 && req.httpVersionMajor === 1 && req.headers['transfer-encoding'] !== undefined) {
    return 'TRANSFER_ENCODING_ON_HTTP10';
  }

  let url = req.url ?? '/';
  if (url.charCodeAt(0) !== 47 /* '/' */) {
    const absolute = readAbsoluteForm(url, host);
    if (typeof absolute !== 'string') return absolute.error;
    url = absolute;
  }
  const q = url.indexOf('?');
  const rawPath = q === -1 ? url : url.slice(0, q);
  const path = normalizePath(rawPath);
  if (path === undefined) return 'INVALID_PATH';
  return { path, query: q === -1 ? '' : url.slice(q) };
}

/** RFC 9112 3.2.2: an absolute-form target is accepted only when it names the Host we were sent. */
function readAbsoluteForm(url: string, host: string | undefined): string | { error: GatewayErrorCode } {
  const match = /^https?:\/\/([^/?#]+)(.*)$/i.exec(url);
  if (!match) return { error: 'INVALID_TARGET' };
  const authority = (match[1] as string).toLowerCase();
  if (host === undefined || authority !== host.toLowerCase()) return { error: 'INVALID_TARGET' };
  const rest = match[2] as string;
  return rest === '' ? '/' : rest.charCodeAt(0) === 63 /* '?' */ ? `/${rest}` : rest;
}

/** `..;x` and `.;x`: Tomcat, Jetty and Spring strip the path parameter and resolve the dots. */
const DOT_PARAMETER_SEGMENT = /^\.\.?;/;

/**
 * Resolves dot segments (RFC 3986 5.2.4) after decoding `%2e`, and merges repeated slashes, so the
 * path we match is the path the upstream will see: `/svc/../x` and `/svc/%2e%2e/x` both become
 * `/x` and can never reach an upstream outside their prefix. An encoded slash or backslash mixed
 * with dots (`..%2f`), and a dot segment with a path parameter (`..;`), are refused: an upstream
 * that decodes or strips them would see a traversal we did not.
 * Returns undefined for a path that must be refused.
 */
export function normalizePath(path: string): string | undefined {
  if (path.indexOf('\\') !== -1) return undefined;
  const hasPercent = path.indexOf('%') !== -1;
  if (!hasPercent && path.indexOf('/.') === -1 && path.indexOf('//') === -1) return path;

  const decoded = hasPercent ? path.replace(/%2e/gi, '.') : path;
  const output: string[] = [];
  const segments = decoded.split('/');
  for (let i = 1; i < segments.length; i += 1) {
    const segment = segments[i] as string;
    if (segment === '' && i < segments.length - 1) continue; // `//` merges
    if (segment === '.') continue;
    if (segment === '..') {
      output.pop();
      continue;
    }
    if (segment.charCodeAt(0) === 46 /* . */ && DOT_PARAMETER_SEGMENT.test(hasPercent ? segment.replace(/%3b/gi, ';') : segment)) return undefined;
    if (hasPercent && segment.indexOf('.') !== -1 && /%(?:2f|5c)/i.test(segment)) return undefined;
    output.push(segment);
  }
  const last = segments[segments.length - 1];
  // `/a/b/..` and `/a/.` name a directory: keep the trailing slash as RFC 3986 does.
  if ((last === '.' || last === '..') && output.length > 0) output.push('');
  return `/${output.join('/')}`;
}
