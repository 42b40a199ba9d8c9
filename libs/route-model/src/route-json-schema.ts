import type { FieldSpec, ObjectSpec } from './field-spec';
import { ROUTE_SCHEMA } from './route.schema';

/**
 * A JSON Schema object in the dialect of OpenAPI 3.0 (the version of the control plane's document):
 * `exclusiveMinimum` is a boolean beside `minimum`, and `x-` keys carry what JSON Schema cannot say.
 */
export interface JsonSchema {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
  description?: string;
  default?: unknown;
  enum?: readonly string[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  items?: JsonSchema;
  minItems?: number;
  uniqueItems?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  oneOf?: JsonSchema[];
  readOnly?: boolean;
  /** A map's key rule (a regular expression source): OpenAPI 3.0 has no propertyNames. */
  'x-key-pattern'?: string;
}

/**
 * The JSON Schema of one field spec: the same table normalizeRoute and validateRoute interpret, so
 * descriptions, defaults and bounds are stated once. Custom checks (URL, path pattern, header
 * template) are not expressible here and stay in the validator; the description names them.
 */
/**
 * `canonical`: a value as normalizeRoute returns it (and the API answers it): defaulted fields are
 * required. `input`: what a client may send: only the table's required fields are required.
 */
export type JsonSchemaForm = 'canonical' | 'input';

export function fieldSpecToJsonSchema(spec: FieldSpec, form: JsonSchemaForm = 'canonical'): JsonSchema {
  const base: JsonSchema = { description: spec.doc, ...(spec.readOnly === true ? { readOnly: true } : {}) };
  switch (spec.kind) {
    case 'string':
      return {
        type: 'string',
        ...base,
        ...defined({ default: spec.default, minLength: spec.minLength, maxLength: spec.maxLength }),
        ...(spec.oneOf === undefined ? {} : { enum: [...spec.oneOf] }),
      };
    case 'integer':
    case 'number':
      return {
        type: spec.kind,
        ...base,
        ...defined({ default: spec.default, minimum: spec.min, maximum: spec.max }),
        ...(spec.exclusiveMin === true ? { exclusiveMinimum: true } : {}),
      };
    case 'boolean':
      return { type: 'boolean', ...base, ...defined({ default: spec.default }) };
    case 'byteSize':
      return {
        ...base,
        ...defined({ default: spec.default }),
        oneOf: [{ type: 'integer', ...defined({ minimum: spec.min, maximum: spec.max }) }, { type: 'string', description: 'a size with a unit: 512kb, 10mb' }],
      };
    case 'array':
      return {
        type: 'array',
        ...base,
        items: fieldSpecToJsonSchema(spec.items, form),
        ...defined({ default: spec.default === undefined ? undefined : [...spec.default], minItems: spec.minItems }),
        ...(spec.unique === true ? { uniqueItems: true } : {}),
      };
    case 'map':
      return { type: 'object', ...base, additionalProperties: fieldSpecToJsonSchema(spec.values, form), 'x-key-pattern': spec.keyPattern.source };
    case 'object':
      return objectSchema(spec, base, form);
    case 'forbidden':
      // Never reached for a property (objectSchema leaves forbidden keys out); a bare one accepts nothing.
      return { ...base, oneOf: [] };
  }
}

function objectSchema(spec: ObjectSpec, base: JsonSchema, form: JsonSchemaForm): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(spec.fields)) {
    if (field.kind === 'forbidden') continue;
    properties[key] = fieldSpecToJsonSchema(field, form);
    if (form === 'canonical' ? isAlwaysPresent(field) : field.required === true) required.push(key);
  }
  return { type: 'object', ...base, properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/** Present in every canonical value: required, defaulted, or an object created from its fields' defaults. */
function isAlwaysPresent(field: FieldSpec): boolean {
  if (field.required === true) return true;
  if (field.kind === 'object') return field.fill === true;
  return field.kind !== 'forbidden' && field.kind !== 'map' && field.default !== undefined;
}

function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * The canonical route (spec 2.1) as the API answers it: every default filled, server-set fields
 * read-only. The control plane's OpenAPI document and the admin UI's editor both read it.
 */
export const ROUTE_JSON_SCHEMA: JsonSchema = fieldSpecToJsonSchema(ROUTE_SCHEMA);

/**
 * A route as a client may send it (POST, PUT): defaults are filled by the server, so only path and
 * upstream are required (id is generated when omitted, decision 12).
 */
export const ROUTE_INPUT_JSON_SCHEMA: JsonSchema = {
  ...fieldSpecToJsonSchema(ROUTE_SCHEMA, 'input'),
  required: ['path', 'upstream'],
};
