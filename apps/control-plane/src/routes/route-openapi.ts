import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiQuery } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { HTTP_METHODS } from '@gateway/route-model';
import { Fails, NoContent, Ok, OkList, ROUTE_INPUT_SCHEMA_NAME, ROUTE_SCHEMA_NAME, schemaRef } from '../openapi/openapi-schemas';
import { ROUTE_LIST_PARAMETERS } from './route-list-query';
import { PROBE_LIMITS } from './route-probe-input';

/**
 * OpenAPI descriptions of the routes endpoints. Documentation only: bodies are validated by
 * libs/route-model (normalizeRoute / validateRoute), never by these schemas. The route's schema is
 * the route model's own (ROUTE_JSON_SCHEMA, emitted from the field table: descriptions, defaults,
 * bounds), registered once as the components `Route` and `RouteInput` (openapi-schemas.ts).
 * Variant B fields (target, retryAttempts, rateLimiting, numeric timeout) are accepted too and
 * normalized (decision 6); docs/routes-api.md has every rule.
 */

/** An answer: the canonical route with every default filled. */
const ROUTE = schemaRef(ROUTE_SCHEMA_NAME);
const ROUTE_BODY = schemaRef(ROUTE_INPUT_SCHEMA_NAME);
const ROUTE_PATCH: SchemaObject = {
  type: 'object',
  description: 'A JSON merge patch (RFC 7396) over the stored route (see the Route schema): objects merge, arrays and scalars replace, null resets a field to its default',
  additionalProperties: true,
};

const PROBE_REQUEST: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  description: 'Every field optional; unknown fields are refused',
  properties: {
    method: { type: 'string', enum: [...HTTP_METHODS], default: 'GET', description: "Case-insensitive; must be allowed by the route's methods" },
    path: { type: 'string', maxLength: PROBE_LIMITS.pathLength, example: '/users/1?x=1', description: "Must match the route's pattern; may carry a query. Default: the pattern's literal part" },
    headers: {
      type: 'object',
      maxProperties: PROBE_LIMITS.headerCount,
      additionalProperties: { type: 'string', maxLength: PROBE_LIMITS.headerValueLength },
      description: 'Host, Content-Length, Transfer-Encoding, Connection, Upgrade, Expect, Keep-Alive, TE and Trailer are set by the test and refused',
    },
    body: {
      description: `Any JSON value: a string is sent as is, anything else as JSON (content-type application/json unless given); at most ${PROBE_LIMITS.bodyBytes} bytes`,
      example: { name: 'Ada' },
    },
  },
};
const PROBE_RESULT: SchemaObject = {
  type: 'object',
  required: ['url', 'status', 'latencyMs', 'headers', 'bodyPreview', 'truncated'],
  description: 'The upstream answered (any status)',
  properties: {
    url: { type: 'string', format: 'uri', description: 'After the rewrite a data plane applies (decision 15)' },
    status: { type: 'integer', example: 200 },
    latencyMs: { type: 'number', description: "From sending the request to the upstream's response headers (0.1 ms resolution)" },
    headers: { type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } },
    bodyPreview: { type: 'string', description: 'The first 4096 bytes of the body as UTF-8 text' },
    truncated: { type: 'boolean', description: 'The body was longer than the preview' },
  },
};
const PROBE_FAILURE: SchemaObject = {
  type: 'object',
  required: ['url', 'error', 'message', 'latencyMs'],
  description: 'The upstream did not answer: the test itself worked, so this is a 200 of the API',
  properties: {
    url: { type: 'string', format: 'uri' },
    error: { type: 'string', enum: ['UPSTREAM_UNREACHABLE', 'UPSTREAM_TIMEOUT'] },
    message: { type: 'string', example: 'ECONNREFUSED' },
    latencyMs: { type: 'number' },
  },
};

const ID = ApiParam({ name: 'id', description: 'Route id' });
const NOT_FOUND = Fails(404, 'ROUTE_NOT_FOUND: "Route not found" (unknown id, or soft-deleted)');
const READ_ONLY = Fails(422, 'READ_ONLY_ROUTE: routes from proxy.yml change only through the file');
const INVALID = Fails(400, 'VALIDATION_ERROR / INVALID_PATH / INVALID_URL / RESERVED_PATH (one process: /api, /admin, /internal); details.fields lists every failing field');
const CONFLICT = Fails(409, 'PATH_EXISTS: "Path already exists" (another enabled route has the path)');
const ONE_ROUTE = (status: 200 | 201 = 200) => Ok(status, ROUTE);

export const RouteDocs = {
  list: () =>
    applyDecorators(
      ApiOperation({ summary: 'List routes, paginated and filtered (decision 5)' }),
      ...Object.entries(ROUTE_LIST_PARAMETERS).map(([name, { schema, description }]) => ApiQuery({ name, required: false, schema, description })),
      OkList(ROUTE),
      Fails(400, 'VALIDATION_ERROR: an unknown, repeated or bad parameter (details.fields names each)'),
    ),
  create: () =>
    applyDecorators(
      ApiOperation({ summary: 'Create a route (variant A or B body)' }),
      ApiBody({ schema: ROUTE_BODY }),
      ONE_ROUTE(201),
      INVALID,
      Fails(409, 'PATH_EXISTS: "Path already exists"; CONFLICT: "Route id already exists"'),
    ),
  get: () => applyDecorators(ApiOperation({ summary: 'One route' }), ID, ONE_ROUTE(), NOT_FOUND),
  replace: () =>
    applyDecorators(ApiOperation({ summary: 'Replace a route (omitted fields return to their defaults)' }), ID, ApiBody({ schema: ROUTE_BODY }), ONE_ROUTE(), INVALID, NOT_FOUND, CONFLICT, READ_ONLY),
  patch: () => applyDecorators(ApiOperation({ summary: 'Change some fields (JSON merge patch)' }), ID, ApiBody({ schema: ROUTE_PATCH }), ONE_ROUTE(), INVALID, NOT_FOUND, CONFLICT, READ_ONLY),
  remove: () =>
    applyDecorators(
      ApiOperation({ summary: 'Soft delete (restorable for 30 days), or remove for good with permanent=true' }),
      ID,
      ApiQuery({ name: 'permanent', required: false, schema: { type: 'boolean', default: false }, description: 'true: remove the route (live or soft-deleted) at once' }),
      NoContent('Deleted'),
      Fails(400, 'VALIDATION_ERROR: permanent is not true or false, or another query parameter was given'),
      NOT_FOUND,
      READ_ONLY,
    ),
  toggle: () => applyDecorators(ApiOperation({ summary: 'Flip enabled' }), ID, ONE_ROUTE(), NOT_FOUND, CONFLICT, READ_ONLY),
  clone: () => applyDecorators(ApiOperation({ summary: 'A disabled copy with id <id>-copy (-copy-2, ...)' }), ID, ONE_ROUTE(201), NOT_FOUND),
  restore: () =>
    applyDecorators(ApiOperation({ summary: 'Bring back a soft-deleted route' }), ID, ONE_ROUTE(), NOT_FOUND, CONFLICT, Fails(422, 'READ_ONLY_ROUTE (a proxy.yml route); BUSINESS_RULE: "Route is not deleted"')),
  test: () =>
    applyDecorators(
      ApiOperation({ summary: "Send one request to the route's upstream, rewritten as a data plane would (no policies applied)" }),
      ID,
      ApiBody({ required: false, schema: PROBE_REQUEST }),
      Ok(200, { oneOf: [PROBE_RESULT, PROBE_FAILURE] }, 'The upstream answered (any status), or could not be reached / timed out (error)'),
      Fails(400, 'VALIDATION_ERROR: a bad or unknown body field, or a path the route does not match (details.fields)'),
      NOT_FOUND,
      Fails(422, 'OUTBOUND_TARGET_REFUSED: the upstream is (or resolves to) a cloud metadata or link-local address, not listed in OUTBOUND_ALLOW_CIDRS (details: address, range)'),
    ),
};
