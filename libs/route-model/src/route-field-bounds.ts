import type { FieldSpec } from './field-spec';
import { ROUTE_SCHEMA } from './route.schema';

/**
 * The numeric bounds of one route field (dotted path, e.g. `timeout.request`), read from the route
 * schema itself so that another validator (settings' route defaults) never restates them.
 */
export function routeNumberBounds(fieldPath: string): { min: number; max: number } {
  let spec: FieldSpec = ROUTE_SCHEMA;
  for (const segment of fieldPath.split('.')) {
    if (spec.kind !== 'object' || spec.fields[segment] === undefined) throw new Error(`route field ${fieldPath} does not exist`);
    spec = spec.fields[segment];
  }
  if ((spec.kind !== 'integer' && spec.kind !== 'number') || spec.min === undefined || spec.max === undefined) {
    throw new Error(`route field ${fieldPath} has no numeric bounds`);
  }
  return { min: spec.min, max: spec.max };
}
