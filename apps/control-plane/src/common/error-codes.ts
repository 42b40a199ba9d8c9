/**
 * Every error condition of the management API (decision 3: one stable UPPER_SNAKE code per
 * condition, documented here and in docs/control-plane.md). Status and, where the spec fixes it,
 * the message are derived from the code in one exhaustive switch each.
 */
export const ERROR_CODES = [
  'VALIDATION_ERROR',
  'INVALID_PATH',
  'INVALID_URL',
  'RESERVED_PATH',
  'UNKNOWN_UPSTREAM',
  'INVALID_CONFIG',
  'UNAUTHORIZED',
  'INVALID_CREDENTIALS',
  'FORBIDDEN',
  'CSRF_TOKEN_INVALID',
  'NOT_FOUND',
  'ROUTE_NOT_FOUND',
  'USER_NOT_FOUND',
  'API_KEY_NOT_FOUND',
  'WEBHOOK_NOT_FOUND',
  'WEBHOOK_DELIVERY_NOT_FOUND',
  'SETTINGS_VERSION_NOT_FOUND',
  'RUNBOOK_NOT_FOUND',
  'RUNBOOK_EXECUTION_NOT_FOUND',
  'AI_INCIDENT_NOT_FOUND',
  'UPSTREAM_NOT_FOUND',
  'PATH_EXISTS',
  'EMAIL_EXISTS',
  'CONFLICT',
  'UPSTREAM_IN_USE',
  'PAYLOAD_TOO_LARGE',
  'READ_ONLY_ROUTE',
  'READ_ONLY_UPSTREAM',
  'NO_CIRCUIT_BREAKER',
  'LAST_ADMIN',
  'BUSINESS_RULE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'NOT_IMPLEMENTED',
  'SERVICE_UNAVAILABLE',
  'DATA_PLANES_UNAVAILABLE',
  'API_KEYS_NOT_CONFIGURED',
  'OUTBOUND_TARGET_REFUSED',
  'SAML_REJECTED',
  'SSO_NOT_CONFIGURED',
  'AUTH_SERVICE_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'VALIDATION_ERROR':
    case 'INVALID_PATH':
    case 'INVALID_URL':
    case 'RESERVED_PATH':
    case 'UNKNOWN_UPSTREAM':
    case 'INVALID_CONFIG':
      return 400;
    case 'UNAUTHORIZED':
    case 'INVALID_CREDENTIALS':
    case 'SAML_REJECTED':
      return 401;
    case 'FORBIDDEN':
    case 'CSRF_TOKEN_INVALID':
      return 403;
    case 'NOT_FOUND':
    case 'ROUTE_NOT_FOUND':
    case 'USER_NOT_FOUND':
    case 'API_KEY_NOT_FOUND':
    case 'WEBHOOK_NOT_FOUND':
    case 'WEBHOOK_DELIVERY_NOT_FOUND':
    case 'SETTINGS_VERSION_NOT_FOUND':
    case 'RUNBOOK_NOT_FOUND':
    case 'RUNBOOK_EXECUTION_NOT_FOUND':
    case 'AI_INCIDENT_NOT_FOUND':
    case 'UPSTREAM_NOT_FOUND':
      return 404;
    case 'PATH_EXISTS':
    case 'EMAIL_EXISTS':
    case 'CONFLICT':
    case 'UPSTREAM_IN_USE':
      return 409;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'READ_ONLY_ROUTE':
    case 'READ_ONLY_UPSTREAM':
    case 'NO_CIRCUIT_BREAKER':
    case 'LAST_ADMIN':
    case 'BUSINESS_RULE':
    case 'OUTBOUND_TARGET_REFUSED':
      return 422;
    case 'RATE_LIMITED':
      return 429;
    case 'INTERNAL_ERROR':
      return 500;
    case 'NOT_IMPLEMENTED':
      return 501;
    case 'SERVICE_UNAVAILABLE':
    case 'DATA_PLANES_UNAVAILABLE':
    case 'API_KEYS_NOT_CONFIGURED':
    case 'SSO_NOT_CONFIGURED':
    case 'AUTH_SERVICE_UNAVAILABLE':
      return 503;
    default: {
      const unreachable: never = code;
      throw new Error(`unmapped error code ${String(unreachable)}`);
    }
  }
}

/**
 * The `error` string of each code. Spec 7.2's messages are fixed word for word and cannot be
 * overridden; for the other codes a thrower may give a more precise message.
 */
export function messageOf(code: ErrorCode): { text: string; fixed: boolean } {
  switch (code) {
    case 'INVALID_PATH':
      return { text: 'Invalid path format', fixed: true };
    case 'INVALID_URL':
      return { text: 'Invalid URL', fixed: true };
    case 'PATH_EXISTS':
      return { text: 'Path already exists', fixed: true };
    case 'ROUTE_NOT_FOUND':
      return { text: 'Route not found', fixed: true };
    case 'UNAUTHORIZED':
      return { text: 'Unauthorized', fixed: true };
    case 'FORBIDDEN':
      return { text: 'Forbidden', fixed: true };
    case 'CSRF_TOKEN_INVALID':
      return { text: 'Missing or invalid CSRF token: a cookie session sends the gateway_csrf cookie in the X-CSRF-Token header', fixed: true };
    case 'VALIDATION_ERROR':
      return { text: 'Validation failed', fixed: false };
    case 'UNKNOWN_UPSTREAM':
      return { text: 'Unknown upstream', fixed: false };
    case 'RESERVED_PATH':
      return { text: 'Path is reserved for the management API', fixed: false };
    case 'INVALID_CONFIG':
      return { text: 'Invalid configuration file', fixed: false };
    case 'INVALID_CREDENTIALS':
      return { text: 'Invalid email or password', fixed: true };
    case 'SAML_REJECTED':
      return { text: 'The SAML response was refused', fixed: false };
    case 'SSO_NOT_CONFIGURED':
      return { text: 'SAML single sign-on is not configured (the sso settings or authentication.sso in proxy.yml)', fixed: false };
    case 'AUTH_SERVICE_UNAVAILABLE':
      return { text: 'The session service is unavailable', fixed: true };
    case 'NOT_FOUND':
      return { text: 'Not Found', fixed: false };
    case 'USER_NOT_FOUND':
      return { text: 'User not found', fixed: true };
    case 'EMAIL_EXISTS':
      return { text: 'Email already exists', fixed: true };
    case 'LAST_ADMIN':
      return { text: 'The last admin cannot be deleted', fixed: false };
    case 'CONFLICT':
      return { text: 'Conflict', fixed: false };
    case 'PAYLOAD_TOO_LARGE':
      return { text: 'Request body too large', fixed: false };
    case 'READ_ONLY_ROUTE':
      return { text: 'Route is read-only: it is declared in proxy.yml', fixed: false };
    case 'READ_ONLY_UPSTREAM':
      return { text: 'Upstream is read-only: it is declared in proxy.yml', fixed: false };
    case 'UPSTREAM_IN_USE':
      return { text: 'Upstream is named by routes', fixed: false };
    case 'UPSTREAM_NOT_FOUND':
      return { text: 'Upstream not found', fixed: true };
    case 'NO_CIRCUIT_BREAKER':
      return { text: 'Route has no circuit breaker', fixed: true };
    case 'BUSINESS_RULE':
      return { text: 'Request cannot be processed', fixed: false };
    case 'OUTBOUND_TARGET_REFUSED':
      return { text: 'The target address is refused for requests made on an admin\'s behalf', fixed: false };
    case 'RATE_LIMITED':
      return { text: 'Rate limit exceeded', fixed: false };
    case 'INTERNAL_ERROR':
      return { text: 'Internal server error', fixed: true };
    case 'NOT_IMPLEMENTED':
      return { text: 'Not implemented', fixed: false };
    case 'SERVICE_UNAVAILABLE':
      return { text: 'Service unavailable', fixed: false };
    case 'DATA_PLANES_UNAVAILABLE':
      return { text: 'Not every data plane answered', fixed: false };
    case 'API_KEY_NOT_FOUND':
      return { text: 'API key not found', fixed: true };
    case 'WEBHOOK_NOT_FOUND':
      return { text: 'Webhook not found', fixed: true };
    case 'WEBHOOK_DELIVERY_NOT_FOUND':
      return { text: 'Webhook delivery not found', fixed: true };
    case 'SETTINGS_VERSION_NOT_FOUND':
      return { text: 'Settings version not found', fixed: true };
    case 'RUNBOOK_NOT_FOUND':
      return { text: 'Runbook not found', fixed: true };
    case 'RUNBOOK_EXECUTION_NOT_FOUND':
      return { text: 'Runbook execution not found', fixed: true };
    case 'AI_INCIDENT_NOT_FOUND':
      return { text: 'AI incident not found', fixed: true };
    case 'API_KEYS_NOT_CONFIGURED':
      return { text: 'API keys are not configured: set API_KEY_SECRET (at least 32 characters) on the control plane and every data plane', fixed: true };
    default: {
      const unreachable: never = code;
      throw new Error(`unmapped error code ${String(unreachable)}`);
    }
  }
}
