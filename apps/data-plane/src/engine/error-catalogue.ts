/**
 * Every error the gateway itself can answer with: a stable code, a fixed status and the spec 7.3
 * `error`/`message` strings. Responses are written from this table only; an exception's own
 * message never reaches a client.
 */
export const GATEWAY_ERRORS = {
  BAD_REQUEST: { status: 400, error: 'Bad Request', message: 'Malformed request' },
  INVALID_HOST: { status: 400, error: 'Bad Request', message: 'Missing, duplicate or invalid Host header' },
  INVALID_TARGET: { status: 400, error: 'Bad Request', message: 'Request target is not served here' },
  INVALID_PATH: { status: 400, error: 'Bad Request', message: 'Invalid request path' },
  TRANSFER_ENCODING_ON_HTTP10: { status: 400, error: 'Bad Request', message: 'Transfer-Encoding is not allowed on HTTP/1.0' },
  ROUTE_NOT_FOUND: { status: 404, error: 'Not Found', message: undefined },
  METHOD_NOT_ALLOWED: { status: 405, error: 'Method Not Allowed', message: 'This method is not served here' },
  REQUEST_TIMEOUT: { status: 408, error: 'Request Timeout', message: 'The request was not received in time' },
  EXPECTATION_FAILED: { status: 417, error: 'Expectation Failed', message: 'Only Expect: 100-continue is supported' },
  PAYLOAD_TOO_LARGE: { status: 413, error: 'Payload Too Large', message: 'Request body exceeds the size limit' },
  HEADERS_TOO_LARGE: { status: 431, error: 'Request Header Fields Too Large', message: 'Request headers exceed the size limit' },
  RATE_LIMITED: { status: 429, error: 'Too Many Requests', message: 'Rate limit exceeded' },
  TOO_MANY_FAILED_CREDENTIALS: { status: 429, error: 'Too Many Requests', message: 'Too many failed credentials from this address' },
  UNAUTHORIZED: { status: 401, error: 'Unauthorized', message: 'Authentication required' },
  INVALID_CREDENTIALS: { status: 401, error: 'Unauthorized', message: 'Invalid or expired credentials' },
  FORBIDDEN: { status: 403, error: 'Forbidden', message: 'Access denied' },
  INTERNAL_ERROR: { status: 500, error: 'Internal Server Error', message: 'Internal gateway error' },
  UPSTREAM_ERROR: { status: 502, error: 'Bad Gateway', message: 'Upstream error' },
  RESPONSE_TRANSFORM_FAILED: { status: 502, error: 'Bad Gateway', message: 'Upstream response could not be transformed' },
  CIRCUIT_OPEN: { status: 503, error: 'Service Unavailable', message: 'Circuit breaker is open' },
  UPSTREAM_UNHEALTHY: { status: 503, error: 'Service Unavailable', message: 'Upstream is unhealthy' },
  SERVICE_UNAVAILABLE: { status: 503, error: 'Service Unavailable', message: 'Service unavailable' },
  AUTH_SERVICE_UNAVAILABLE: { status: 503, error: 'Service Unavailable', message: 'Authentication service unavailable' },
  AUTH_OVERLOADED: { status: 503, error: 'Service Unavailable', message: 'Too many credential checks in progress' },
  WEBSOCKET_LIMIT_REACHED: { status: 503, error: 'Service Unavailable', message: 'Too many WebSocket connections on this route' },
  AUTH_NOT_CONFIGURED: { status: 503, error: 'Service Unavailable', message: 'Authentication is not configured for this route' },
  UPSTREAM_TIMEOUT: { status: 504, error: 'Gateway Timeout', message: 'Upstream request timed out' },
  UPSTREAM_CONNECT_TIMEOUT: { status: 504, error: 'Gateway Timeout', message: 'Upstream connection timed out' },
  /** RFC 9111 5.2.2.2: a stored `must-revalidate` response whose revalidation failed is never served stale. */
  REVALIDATION_FAILED: { status: 504, error: 'Gateway Timeout', message: 'Stored response could not be revalidated with the upstream' },
} as const satisfies Record<string, { status: number; error: string; message: string | undefined }>;

export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;

/** Thrown (or rejected) inside the engine and policies; mapped to a response by its code alone. */
export class GatewayError extends Error {
  constructor(
    readonly code: GatewayErrorCode,
    /** Seconds, for 429 and 503 (spec 7.3 `retryAfter`). */
    readonly retryAfter?: number,
    options?: { cause?: unknown },
  ) {
    super(code, options);
    this.name = 'GatewayError';
  }
}

export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}
