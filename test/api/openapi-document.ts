/**
 * The parts of an OpenAPI 3.0 document the e2e suite reads, and a small checker of a JSON value
 * against one of its schemas: enough to tell whether the document describes what the API answers
 * (types, enums, required fields, no undocumented fields), not a full JSON Schema validator.
 */

export interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  nullable?: boolean;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  oneOf?: Schema[];
}

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: Schema }> }>;
  security?: Array<Record<string, string[]>>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, Schema> };
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Every operation of the document, with its method and path template. */
export function operationsOf(doc: OpenApiDocument): Array<{ method: string; path: string; operation: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => item[method] !== undefined).map((method) => ({ method, path, operation: item[method] as Operation })),
  );
}

export function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  if (schema.$ref === undefined) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const target = doc.components.schemas[name];
  if (target === undefined) throw new Error(`unresolved ${schema.$ref}`);
  return resolve(doc, target);
}

/** Where `value` departs from `schema`: one message per problem, empty when it conforms. */
export function mismatches(doc: OpenApiDocument, value: unknown, schema: Schema, at = '$'): string[] {
  const s = resolve(doc, schema);
  if (s.oneOf !== undefined) {
    const results = s.oneOf.map((alternative) => mismatches(doc, value, alternative, at));
    return results.some((r) => r.length === 0) ? [] : [`${at} matches no alternative: ${results.map((r) => r.join(', ')).join(' | ')}`];
  }
  if (value === null) return s.nullable === true ? [] : [`${at} is null`];
  if (s.enum !== undefined && !s.enum.includes(value)) return [`${at} = ${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`];
  switch (s.type) {
    case undefined:
      return [];
    case 'string':
    case 'boolean':
      return typeof value === s.type ? [] : [`${at} is not a ${s.type}`];
    case 'number':
      return typeof value === 'number' ? [] : [`${at} is not a number`];
    case 'integer':
      return Number.isInteger(value) ? [] : [`${at} is not an integer`];
    case 'array':
      if (!Array.isArray(value)) return [`${at} is not an array`];
      return s.items === undefined ? [] : value.flatMap((item, i) => mismatches(doc, item, s.items as Schema, `${at}[${i}]`));
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return [`${at} is not an object`];
      const record = value as Record<string, unknown>;
      const problems = (s.required ?? []).filter((key) => !(key in record)).map((key) => `${at}.${key} is required but missing`);
      for (const [key, item] of Object.entries(record)) {
        const declared = s.properties?.[key];
        if (declared !== undefined) problems.push(...mismatches(doc, item, declared, `${at}.${key}`));
        else if (typeof s.additionalProperties === 'object') problems.push(...mismatches(doc, item, s.additionalProperties, `${at}.${key}`));
        else if (s.properties !== undefined && s.additionalProperties !== true) problems.push(`${at}.${key} is not documented`);
      }
      return problems;
    }
    default:
      return [`${at}: unknown schema type ${s.type}`];
  }
}
