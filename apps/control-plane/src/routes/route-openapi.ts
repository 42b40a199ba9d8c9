import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';

/**
 * OpenAPI descriptions of the routes endpoints. Documentation only: bodies are validated by
 * libs/route-model (normalizeRoute / validateRoute), never by these schemas. The field list is
 * the canonical route (spec 2.1, variant A); variant B fields (target, retryAttempts, rateLimiting,
 * numeric timeout) are accepted too and normalized (decision 6). docs/routes-api.md has every rule.
 */
const ROUTE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['path', 'upstream'],
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Generated when omitted (decision 12)' },
    path: { type: 'string', example: '/users/*', description: '"/prefix/*", "/exact/path" or "/a/*/b" (decision 8)' },
    upstream: { type: 'string', format: 'uri', example: 'http://users.internal:8080' },
    methods: { type: 'array', items: { type: 'string', enum: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] } },
    enabled: { type: 'boolean', default: true },
    description: { type: 'string', default: '' },
    priority: { type: 'integer', default: 50 },
    tags: { type: 'array', items: { type: 'string' } },
    stripPath: { type: 'boolean', default: true },
    timeout: { type: 'object', properties: { connect: { type: 'integer' }, request: { type: 'integer', default: 5000 }, keepAlive: { type: 'integer' } } },
    retry: { type: 'object', description: 'enabled, attempts (0..10), backoff, initialDelay, maxDelay, multiplier, jitter, methods' },
    rateLimit: { type: 'object', description: 'enabled, max, windowMs, strategy, scope, keyExpression, skip*, response' },
    circuitBreaker: { type: 'object', description: 'enabled, threshold (percent), timeout, resetTimeout, volumeThreshold, errorStatuses, fallback' },
    healthCheck: { type: 'object', description: 'enabled, url, interval, timeout, unhealthyThreshold, healthyThreshold, expectedStatus, expectedBody' },
    headers: { type: 'object', description: 'request / response: { set, remove }; values may use ${requestId} and the other variables' },
    transform: { type: 'object', description: 'request.query, request.headers.add/remove, response.body.exclude' },
    cache: { type: 'object', description: 'enabled, ttl, varyBy, cacheableStatuses, cacheAuthorized' },
    auth: { type: 'object', description: 'enabled, type (jwt, apiKey, basic), jwt.{secretEnv, algorithms, issuer, validateIssuer, validateExpiration}' },
    source: { type: 'string', enum: ['api', 'file'], readOnly: true },
    createdAt: { type: 'string', format: 'date-time', readOnly: true },
    updatedAt: { type: 'string', format: 'date-time', readOnly: true },
    deletedAt: { type: 'string', format: 'date-time', readOnly: true, nullable: true },
  },
};

const ONE_ROUTE = { schema: { properties: { success: { type: 'boolean', example: true }, data: ROUTE_SCHEMA } } };
const ID = ApiParam({ name: 'id', description: 'Route id' });
const NOT_FOUND = ApiResponse({ status: 404, description: 'ROUTE_NOT_FOUND: "Route not found"' });
const READ_ONLY = ApiResponse({ status: 422, description: 'READ_ONLY_ROUTE: routes from proxy.yml change only through the file' });
const INVALID = ApiResponse({ status: 400, description: 'VALIDATION_ERROR / INVALID_PATH / INVALID_URL; details lists every failing field' });
const CONFLICT = ApiResponse({ status: 409, description: 'PATH_EXISTS: "Path already exists" (another enabled route has the path)' });

export const RouteDocs = {
  list: () =>
    applyDecorators(
      ApiOperation({ summary: 'List routes: limit (<=100), offset, search, enabled, tag, deleted=true (decision 5)' }),
      ApiResponse({ status: 200, schema: { properties: { success: { type: 'boolean' }, data: { type: 'array', items: ROUTE_SCHEMA }, pagination: { type: 'object' } } } }),
    ),
  create: () => applyDecorators(ApiOperation({ summary: 'Create a route (variant A or B body)' }), ApiBody({ schema: ROUTE_SCHEMA }), ApiResponse({ status: 201, ...ONE_ROUTE }), INVALID, CONFLICT),
  get: () => applyDecorators(ApiOperation({ summary: 'One route' }), ID, ApiResponse({ status: 200, ...ONE_ROUTE }), NOT_FOUND),
  replace: () => applyDecorators(ApiOperation({ summary: 'Replace a route (omitted fields return to their defaults)' }), ID, ApiBody({ schema: ROUTE_SCHEMA }), ApiResponse({ status: 200, ...ONE_ROUTE }), INVALID, NOT_FOUND, CONFLICT, READ_ONLY),
  patch: () => applyDecorators(ApiOperation({ summary: 'Change some fields (JSON merge patch)' }), ID, ApiBody({ schema: { type: 'object' } }), ApiResponse({ status: 200, ...ONE_ROUTE }), INVALID, NOT_FOUND, CONFLICT, READ_ONLY),
  remove: () => applyDecorators(ApiOperation({ summary: 'Soft delete (restorable for 30 days); ?permanent=true purges at once' }), ID, ApiResponse({ status: 204 }), NOT_FOUND, READ_ONLY),
  toggle: () => applyDecorators(ApiOperation({ summary: 'Flip enabled' }), ID, ApiResponse({ status: 200, ...ONE_ROUTE }), NOT_FOUND, CONFLICT, READ_ONLY),
  clone: () => applyDecorators(ApiOperation({ summary: 'A disabled copy with id <id>-copy (-copy-2, ...)' }), ID, ApiResponse({ status: 201, ...ONE_ROUTE }), NOT_FOUND),
  restore: () => applyDecorators(ApiOperation({ summary: 'Bring back a soft-deleted route' }), ID, ApiResponse({ status: 200, ...ONE_ROUTE }), NOT_FOUND, CONFLICT, READ_ONLY),
  test: () =>
    applyDecorators(
      ApiOperation({ summary: 'Send a request through the route to its upstream: {url, status, latencyMs, headers, bodyPreview, truncated} or {error}' }),
      ID,
      ApiBody({ required: false, schema: { type: 'object', properties: { method: { type: 'string' }, path: { type: 'string' }, headers: { type: 'object' }, body: { type: 'string' } } } }),
      NOT_FOUND,
    ),
};
