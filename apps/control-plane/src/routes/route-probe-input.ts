import { HTTP_METHODS, type FieldError, type HttpMethod } from '@gateway/route-model';
import { DomainError } from '../common/domain-error';

/** `POST /api/routes/:id/test` body, bounded (docs/routes-api.md). */
export interface RouteProbeRequest {
  method: HttpMethod;
  /** Request path (may carry a query string); default: the route pattern's literal part. */
  path?: string;
  headers: Record<string, string>;
  body?: string;
}

export const PROBE_LIMITS = { pathLength: 2048, headerCount: 50, headerValueLength: 8192, bodyBytes: 64 * 1024 } as const;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Set by the probe itself from the upstream URL and the body. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'expect', 'keep-alive', 'te', 'trailer']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every failing field at once; unknown fields refused. An absent body is an empty one. */
export function parseRouteProbeRequest(body: unknown): RouteProbeRequest {
  const input = body === undefined || body === null ? {} : body;
  const errors: FieldError[] = [];
  const fail = (field: string, message: string): void => void errors.push({ field, message, code: 'VALIDATION_ERROR' });
  if (!isObject(input)) throw DomainError.fromFieldErrors([{ field: '(body)', message: 'body must be a JSON object', code: 'VALIDATION_ERROR' }]);
  for (const key of Object.keys(input)) if (!['method', 'path', 'headers', 'body'].includes(key)) fail(key, 'Unknown field');

  let method: HttpMethod = 'GET';
  if (input['method'] !== undefined) {
    const value = input['method'];
    if (typeof value === 'string' && (HTTP_METHODS as readonly string[]).includes(value.toUpperCase())) method = value.toUpperCase() as HttpMethod;
    else fail('method', `method must be one of: ${HTTP_METHODS.join(', ')}`);
  }

  let path: string | undefined;
  if (input['path'] !== undefined) {
    const value = input['path'];
    if (typeof value !== 'string' || !value.startsWith('/') || value.length > PROBE_LIMITS.pathLength || /[\s#]/.test(value)) {
      fail('path', `path must start with / and be at most ${PROBE_LIMITS.pathLength} characters, without spaces or #`);
    } else path = value;
  }

  const headers: Record<string, string> = {};
  if (input['headers'] !== undefined) {
    const value = input['headers'];
    if (!isObject(value) || Object.keys(value).length > PROBE_LIMITS.headerCount) fail('headers', `headers must be an object of at most ${PROBE_LIMITS.headerCount} name -> string value`);
    else {
      for (const [name, headerValue] of Object.entries(value)) {
        const field = `headers.${name}`;
        if (!TOKEN.test(name)) fail(field, 'header name must be an HTTP token');
        else if (RESERVED_HEADERS.has(name.toLowerCase())) fail(field, 'header is set by the test itself');
        else if (typeof headerValue !== 'string' || headerValue.length > PROBE_LIMITS.headerValueLength || /[\r\n\0]/.test(headerValue)) {
          fail(field, `header value must be a string of at most ${PROBE_LIMITS.headerValueLength} characters without CR, LF or NUL`);
        } else headers[name.toLowerCase()] = headerValue;
      }
    }
  }

  let requestBody: string | undefined;
  if (input['body'] !== undefined) {
    const value = input['body'];
    // A JSON value other than a string is sent as JSON.
    requestBody = typeof value === 'string' ? value : JSON.stringify(value);
    if (Buffer.byteLength(requestBody) > PROBE_LIMITS.bodyBytes) fail('body', `body must be at most ${PROBE_LIMITS.bodyBytes} bytes`);
    else if (typeof value !== 'string' && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  }
  if (errors.length > 0) throw DomainError.fromFieldErrors(errors);
  return { method, path, headers, body: requestBody };
}
