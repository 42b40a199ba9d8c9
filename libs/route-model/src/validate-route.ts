import type { FieldError, Route } from './route.types';
import { crossFieldErrors, ROUTE_RULES } from './cross-field-rules';
import { ROUTE_MODEL_ERROR_CODES } from './error-codes';
import { joinFieldPath } from './field-path';
import { ROUTE_SCHEMA } from './route.schema';
import { isPlainObject, walkObjectFields, type WalkContext } from './schema-walker';

/**
 * Checks a canonical route against the same table normalizeRoute uses, changing nothing: types,
 * bounds, formats, unknown fields and cross-field rules. Short forms (variant B) are not canonical
 * and are reported; a breaker threshold is read as the stored percent, (0, 100] (decision 7).
 * Returns every error; [] when valid.
 */
export function validateRoute(route: Route, fieldPrefix = ''): FieldError[] {
  const value: unknown = route;
  if (!isPlainObject(value)) {
    return [{ field: joinFieldPath(fieldPrefix, ''), message: 'route must be an object', code: ROUTE_MODEL_ERROR_CODES.VALIDATION_ERROR }];
  }
  const errors: FieldError[] = [];
  const ctx: WalkContext = { mode: 'validate', prefix: fieldPrefix, rootLabel: 'route', errors };
  walkObjectFields(ROUTE_SCHEMA, value, '', '', ctx);
  errors.push(...crossFieldErrors(ROUTE_RULES, route, fieldPrefix, errors));
  return errors;
}
