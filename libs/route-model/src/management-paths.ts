import { ROUTE_MODEL_ERROR_CODES } from './error-codes';
import type { FieldError } from './route.types';

/**
 * The prefixes the management plane owns when both planes share one port (`gateway start`, the
 * one-process default): the data plane hands every request under them to the control plane, ahead
 * of route matching. Also what that data plane mounts, so the two can never disagree.
 */
export const MANAGEMENT_PATH_PREFIXES: readonly string[] = Object.freeze(['/api', '/admin', '/internal']);

/**
 * A route whose path lies under one of `reserved` (the prefix itself or below it; `/apis` is not
 * under `/api`) could never be reached: a RESERVED_PATH error on `field`, else undefined. Checked
 * only where the prefixes are really taken (one process), so callers pass the prefixes in force:
 * a data plane of its own serves no management path and may proxy `/api/*`.
 */
export function reservedPathError(path: string, field: string, reserved: readonly string[]): FieldError | undefined {
  const prefix = reserved.find((p) => path === p || path.startsWith(`${p}/`));
  if (prefix === undefined) return undefined;
  return {
    field,
    code: ROUTE_MODEL_ERROR_CODES.RESERVED_PATH,
    message:
      `${path} is under ${prefix}, which the management API serves when both planes share a port (gateway start --role all); ` +
      'use another prefix, or run the proxy with --role data-plane',
  };
}
