/**
 * The FieldError codes this library produces (decision 3: one stable code per condition). The
 * control plane maps them to HTTP statuses: PATH_EXISTS is a 409, every other one a 400.
 */
export const ROUTE_MODEL_ERROR_CODES = {
  /** Wrong type, out of range, not one of the allowed values, unknown or forbidden field, missing. */
  VALIDATION_ERROR: 'VALIDATION_ERROR',
  /** "Invalid path format" (decision 8). */
  INVALID_PATH: 'INVALID_PATH',
  /** "Invalid URL" (decision 8). */
  INVALID_URL: 'INVALID_URL',
  /** "Path already exists": two enabled routes on one path (decision 9). */
  PATH_EXISTS: 'PATH_EXISTS',
  /** A proxy.yml route's `upstream` is neither an upstream name nor a URL. */
  UNKNOWN_UPSTREAM: 'UNKNOWN_UPSTREAM',
  /** A path under a prefix the management plane owns in one process (`reservedPathError`). */
  RESERVED_PATH: 'RESERVED_PATH',
} as const;

export type RouteModelErrorCode = (typeof ROUTE_MODEL_ERROR_CODES)[keyof typeof ROUTE_MODEL_ERROR_CODES];
