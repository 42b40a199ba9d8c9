import { ApiResponse, type ReferenceObject, type SchemaObject } from '@nestjs/swagger';
import { ROUTE_INPUT_JSON_SCHEMA, ROUTE_JSON_SCHEMA, UPSTREAM_INPUT_JSON_SCHEMA, UPSTREAM_JSON_SCHEMA } from '@gateway/route-model';

/**
 * The decisions' envelope (decision 1) as OpenAPI schemas, shared by every controller's
 * documentation so that no controller restates it. Documentation only: nothing validates with these.
 */

export type Schema = SchemaObject | ReferenceObject;

export const PAGINATION_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['total', 'limit', 'offset', 'hasMore'],
  properties: { total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' }, hasMore: { type: 'boolean' } },
};

/** `{success:false, error, code, details?}`: a component, referenced by every error response under /api. */
export const ERROR_ENVELOPE_NAME = 'ErrorEnvelope';
export const ERROR_ENVELOPE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'error', 'code'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    error: { type: 'string', example: 'Route not found' },
    code: { type: 'string', example: 'ROUTE_NOT_FOUND', description: 'One stable code per condition (decision 3; docs/control-plane.md)' },
    details: {
      type: 'object',
      description: 'Validation failures list every failing field (query parameters included) in fields; other codes add their context (path, id, tier, answered/missing data planes, ...)',
      additionalProperties: true,
      properties: { fields: { type: 'array', items: { type: 'object', required: ['field', 'message', 'code'], properties: { field: { type: 'string' }, message: { type: 'string' }, code: { type: 'string' } } } } },
    },
  },
};

/**
 * The route as the API answers it: the route model's own JSON Schema (emitted from its field table,
 * so descriptions, defaults and bounds are never restated here), plus the trash view's deletedAt.
 */
export const ROUTE_SCHEMA_NAME = 'Route';
/** A POST or PUT body: the same fields, only path and upstream required. */
export const ROUTE_INPUT_SCHEMA_NAME = 'RouteInput';
const ROUTE_ANSWER_SCHEMA: SchemaObject = {
  ...(ROUTE_JSON_SCHEMA as SchemaObject),
  properties: {
    ...(ROUTE_JSON_SCHEMA.properties as Record<string, SchemaObject>),
    deletedAt: { type: 'string', format: 'date-time', readOnly: true, description: 'Only on soft-deleted routes (?deleted=true)' },
  },
};
const ROUTE_INPUT_SCHEMA: SchemaObject = {
  ...(ROUTE_INPUT_JSON_SCHEMA as SchemaObject),
  description:
    'The route (id is generated when omitted; server-set fields may be sent back and are ignored), or variant B (target, numeric timeout, retryAttempts, rateLimiting; decision 6); unknown fields are refused',
};

/** An upstream as the API answers it: the route model's canonical upstream, plus the row's timestamps. */
export const UPSTREAM_SCHEMA_NAME = 'Upstream';
/** A POST or PUT body of /api/upstreams. */
export const UPSTREAM_INPUT_SCHEMA_NAME = 'UpstreamInput';
const UPSTREAM_ANSWER_SCHEMA: SchemaObject = {
  ...(UPSTREAM_JSON_SCHEMA as SchemaObject),
  required: [...(UPSTREAM_JSON_SCHEMA.required ?? []), 'source'],
  properties: {
    ...(UPSTREAM_JSON_SCHEMA.properties as Record<string, SchemaObject>),
    createdAt: { type: 'string', format: 'date-time', readOnly: true, description: 'API upstreams only (proxy.yml ones have no timestamps)' },
    updatedAt: { type: 'string', format: 'date-time', readOnly: true, description: 'API upstreams only' },
  },
};
const UPSTREAM_INPUT_SCHEMA: SchemaObject = {
  ...(UPSTREAM_INPUT_JSON_SCHEMA as SchemaObject),
  description: 'name, and url (one target of weight 100) or targets; server-set fields (source, createdAt, updatedAt) may be sent back and are ignored; unknown fields are refused',
};

/** Named schemas every document carries (openapi.ts adds them to components.schemas). */
export const SHARED_SCHEMAS: Readonly<Record<string, SchemaObject>> = {
  [ERROR_ENVELOPE_NAME]: ERROR_ENVELOPE_SCHEMA,
  [ROUTE_SCHEMA_NAME]: ROUTE_ANSWER_SCHEMA,
  [ROUTE_INPUT_SCHEMA_NAME]: ROUTE_INPUT_SCHEMA,
  [UPSTREAM_SCHEMA_NAME]: UPSTREAM_ANSWER_SCHEMA,
  [UPSTREAM_INPUT_SCHEMA_NAME]: UPSTREAM_INPUT_SCHEMA,
};

/** A reference to one of SHARED_SCHEMAS. */
export const schemaRef = (name: keyof typeof SHARED_SCHEMAS): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

/** `{success:true, data}`. */
export function envelopeOf(data: Schema): SchemaObject {
  return { type: 'object', required: ['success', 'data'], properties: { success: { type: 'boolean', enum: [true] }, data } };
}

/** `{success:true, data:[...], pagination}` (decision 5). */
export function listEnvelopeOf(item: Schema): SchemaObject {
  return { type: 'object', required: ['success', 'data', 'pagination'], properties: { success: { type: 'boolean', enum: [true] }, data: { type: 'array', items: item }, pagination: PAGINATION_SCHEMA } };
}

/** A success response whose body is the envelope around `data`. */
export const Ok = (status: 200 | 201, data: Schema, description?: string): MethodDecorator & ClassDecorator =>
  ApiResponse({ status, schema: envelopeOf(data), ...(description === undefined ? {} : { description }) });

/** A paginated list response. */
export const OkList = (item: Schema, description?: string): MethodDecorator & ClassDecorator =>
  ApiResponse({ status: 200, schema: listEnvelopeOf(item), ...(description === undefined ? {} : { description }) });

/** 204 No Content (decision 2). */
export const NoContent = (description: string): MethodDecorator & ClassDecorator => ApiResponse({ status: 204, description });

/** An error response: its body is the error envelope (openapi.ts adds the schema to every error under /api). */
export const Fails = (status: number, description: string): MethodDecorator & ClassDecorator => ApiResponse({ status, description });
