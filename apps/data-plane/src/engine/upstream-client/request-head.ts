import { isFieldValue, isNamed, isToken } from './http-syntax';
import { UpstreamClientError } from './upstream-client-error';

/** One request for an upstream origin. */
export interface UpstreamRequest {
  readonly method: string;
  /** The request target in origin form (`/path?query`), sent as is. */
  readonly path: string;
  /**
   * Fields as a flat `[name, value, ...]` list, sent in this order. Framing is the client's:
   * Content-Length and Transfer-Encoding given here are left out and derived from the body
   * options. Without a Host field the pool's host header is added.
   */
  readonly headers: readonly string[];
  /** The whole body, known up front (or replayed for a retry): sent with Content-Length. */
  readonly body?: Buffer;
  /**
   * A body the caller streams with `UpstreamExchange.write()`/`end()`: its Content-Length, or
   * 'chunked' when the length is unknown.
   */
  readonly streamedBody?: number | 'chunked';
  /**
   * A field value the caller built itself from characters it had checked (the tracing policy's
   * traceparent, formatted from lowercase hex ids): a value equal to it is sent without being
   * scanned again (issue 18: the scan cost ~2.9k instructions on the cons string). Never a value
   * taken from a client or a policy. Equal content is what is compared, so a value a later policy
   * put in the header's place is still checked.
   */
  readonly trustedValue?: string;
}

/** origin-form or asterisk-form, visible ASCII only: a space or CR/LF would end the request line. */
function isRequestTarget(target: string): boolean {
  if (target.length === 0) return false;
  for (let i = 0; i < target.length; i += 1) {
    const code = target.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) return false;
  }
  return true;
}
/** Methods whose requests carry no body unless one is given (node sends no Content-Length for them either). */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE']);
/** Bodies up to this size go out in the same buffer (one write, one packet) as the head. */
export const INLINE_BODY_MAX = 16 * 1024;

const invalid = (detail: string): UpstreamClientError => new UpstreamClientError('UPSTREAM_INVALID_REQUEST', detail);

/**
 * CRLF `name: ` for field names already checked as tokens: the line break that ends the line before
 * is part of the prefix, so a field costs one concatenation less (issue 19, branch h-srv100). A
 * proxied request's names are the same few on every request, and object keys (internalized
 * strings, whose hash is kept): a lookup costs less than the token check and the concatenation it
 * replaces (issue 19). Cleared when full, so names that vary (a client's own) cannot grow it
 * without bound.
 */
const FIELD_PREFIXES = new Map<string, string>();
const FIELD_PREFIXES_MAX = 512;

/** CRLF `name: `, or undefined when `name` is not a token. */
function fieldPrefix(name: string): string | undefined {
  const known = FIELD_PREFIXES.get(name);
  if (known !== undefined) return known;
  if (!isToken(name)) return undefined;
  const prefix = `\r\n${name}: `;
  if (FIELD_PREFIXES.size >= FIELD_PREFIXES_MAX) FIELD_PREFIXES.clear();
  FIELD_PREFIXES.set(name, prefix);
  return prefix;
}

/**
 * Serialises a request head (request line, fields, framing, blank line) into one string to write
 * as one buffer. Every piece is checked: a CR or LF from a header value would otherwise start a
 * field or a request the gateway never saw (request splitting).
 */
export function serializeRequestHead(request: UpstreamRequest, hostHeader: string): string | UpstreamClientError {
  if (!isToken(request.method)) return invalid('invalid method');
  if (!isRequestTarget(request.path)) return invalid('invalid request target');
  // Every line but the request line starts with the CRLF that ends the one before it.
  let head = `${request.method} ${request.path} HTTP/1.1`;
  let hasHost = false;
  const headers = request.headers;
  const trusted = request.trustedValue;
  // The value last found clean: one equal to it is not scanned again (X-Request-Id usually repeats
  // X-Correlation-Id, the same string, ~30 characters at ~25 instructions each; issue 19, h-srv100).
  let clean: string | undefined;
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i] as string;
    const value = headers[i + 1];
    if (value === undefined) return invalid(`header ${name} without a value`);
    const prefix = fieldPrefix(name);
    if (prefix === undefined) return invalid('invalid header name');
    if (value !== trusted && value !== clean) {
      if (!isFieldValue(value)) return invalid(`invalid character in header ${name}`);
      clean = value;
    }
    if (name.length === 4) {
      if (isNamed(name, 'host')) hasHost = true;
    } else if (isNamed(name, 'content-length') || isNamed(name, 'transfer-encoding')) {
      continue;
    }
    head += prefix + value;
  }
  if (!hasHost) head += `\r\nhost: ${hostHeader}`;
  const { body, streamedBody } = request;
  if (body !== undefined && streamedBody !== undefined) return invalid('both body and streamedBody');
  if (streamedBody === 'chunked') head += '\r\ntransfer-encoding: chunked';
  else if (typeof streamedBody === 'number') {
    if (!Number.isSafeInteger(streamedBody) || streamedBody < 0) return invalid('invalid streamedBody length');
    head += `\r\ncontent-length: ${streamedBody}`;
  } else if (body !== undefined && (body.length > 0 || !BODYLESS_METHODS.has(request.method))) {
    head += `\r\ncontent-length: ${body.length}`;
  } else if (body === undefined && !BODYLESS_METHODS.has(request.method)) {
    head += '\r\ncontent-length: 0';
  }
  return `${head}\r\n\r\n`;
}
