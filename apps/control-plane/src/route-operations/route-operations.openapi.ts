import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { Fails, NoContent, Ok } from '../openapi/openapi-schemas';

/** OpenAPI descriptions of the route operations (documentation only; docs/route-operations.md has every rule). */

const NULLABLE_TIME: SchemaObject = { type: 'string', format: 'date-time', nullable: true };
const BREAKER_STATE: SchemaObject = { type: 'string', enum: ['CLOSED', 'OPEN', 'HALF_OPEN'] };
const BREAKER: SchemaObject = {
  type: 'object',
  nullable: true,
  properties: {
    name: { type: 'string', example: 'route:users' },
    kind: { type: 'string', enum: ['route', 'upstream'] },
    state: BREAKER_STATE,
    failures: { type: 'integer' },
    successes: { type: 'integer' },
    lastFailureTime: NULLABLE_TIME,
  },
};
const CHECK: SchemaObject = {
  type: 'object',
  nullable: true,
  properties: {
    status: { type: 'string', enum: ['Healthy', 'Degraded', 'Unhealthy', 'Unknown'] },
    url: { type: 'string' },
    lastCheck: NULLABLE_TIME,
    consecutiveSuccesses: { type: 'integer' },
    consecutiveFailures: { type: 'integer' },
    latencyMs: { type: 'number', nullable: true },
    lastError: { type: 'string', nullable: true },
  },
};
const KEYS: SchemaObject = { type: 'array', items: { properties: { key: { type: 'string', example: 'ip:203.0.113.7' }, hits: { type: 'integer' }, rejections: { type: 'integer' } } } };
const MISSING: SchemaObject = { type: 'array', items: { type: 'string' }, description: 'Live data planes that did not answer within 1 s' };
const dataPlanes = (properties: Record<string, SchemaObject>): SchemaObject => ({
  type: 'array',
  items: { properties: { instanceId: { type: 'string' }, at: { type: 'string', format: 'date-time' }, ...properties } },
});

const BREAKER_RESPONSE: SchemaObject = {
  type: 'object',
  description: 'Spec 2.7 aggregated over the data planes: the most severe state, counts summed, the latest failure',
  properties: {
    routeId: { type: 'string' },
    enabled: { type: 'boolean', description: 'false: no data plane has a breaker for the route (the record fields are null / 0)' },
    name: { type: 'string', nullable: true },
    kind: { type: 'string', enum: ['route', 'upstream'], nullable: true },
    state: { ...BREAKER_STATE, nullable: true },
    failures: { type: 'integer' },
    successes: { type: 'integer' },
    lastFailureTime: NULLABLE_TIME,
    dataPlanes: dataPlanes({ breaker: BREAKER }),
    missing: MISSING,
  },
};
const HEALTH_RESPONSE: SchemaObject = {
  type: 'object',
  properties: {
    routeId: { type: 'string' },
    status: { type: 'string', enum: ['Healthy', 'Degraded', 'Unhealthy', 'Unknown'], nullable: true, description: 'null: the route has no active health check' },
    check: { ...CHECK, description: 'The record of the data plane with the most severe status' },
    breaker: BREAKER,
    dataPlanes: dataPlanes({ check: CHECK, breaker: BREAKER }),
    missing: MISSING,
  },
};
const RATE_LIMIT_RESPONSE: SchemaObject = {
  type: 'object',
  properties: {
    routeId: { type: 'string' },
    enabled: { type: 'boolean' },
    config: { type: 'object', nullable: true, description: "The route's rateLimit block as stored" },
    usage: { properties: { hits: { type: 'integer' }, rejections: { type: 'integer' }, busiestKeys: KEYS }, description: 'Summed over the data planes that answered' },
    dataPlanes: dataPlanes({ usage: { type: 'object', nullable: true, properties: { hits: { type: 'integer' }, rejections: { type: 'integer' }, busiestKeys: KEYS, since: { type: 'string', format: 'date-time' } } } }),
    missing: MISSING,
  },
};

const ID = ApiParam({ name: 'id', description: 'Route id' });
const NOT_FOUND = Fails(404, 'ROUTE_NOT_FOUND: "Route not found" (unknown or deleted)');
const INVALID = Fails(400, 'VALIDATION_ERROR: an unknown query parameter or body field, named in details.fields');
const UNAVAILABLE = Fails(503, 'DATA_PLANES_UNAVAILABLE: no data plane answered, or a live one did not within 1 s (details: answered, missing); safe to repeat');
/** The actions take no field; any is refused by name. */
const NO_BODY = ApiBody({ required: false, schema: { type: 'object', maxProperties: 0, additionalProperties: false, description: 'No fields (an empty object, or no body)' } });

const breakerAction = (summary: string) =>
  applyDecorators(
    ApiOperation({ summary }),
    ID,
    NO_BODY,
    Ok(200, BREAKER_RESPONSE),
    NOT_FOUND,
    INVALID,
    Fails(422, 'NO_CIRCUIT_BREAKER: no data plane has a breaker for the route'),
    UNAVAILABLE,
  );

export const RouteOperationDocs = {
  breaker: () => applyDecorators(ApiOperation({ summary: "The route's circuit breaker on every data plane (spec 2.7 record, aggregated and per data plane)" }), ID, Ok(200, BREAKER_RESPONSE), NOT_FOUND, INVALID),
  trip: () => breakerAction('Manual Trip (any state -> OPEN) on every data plane; publishes circuit_breaker.opened'),
  reset: () => breakerAction('Manual Reset (any state -> CLOSED) on every data plane'),
  rateLimit: () => applyDecorators(ApiOperation({ summary: "The route's rate-limit configuration and its usage summed over every data plane" }), ID, Ok(200, RATE_LIMIT_RESPONSE), NOT_FOUND, INVALID),
  health: () => applyDecorators(ApiOperation({ summary: "The route's active health check and breaker on every data plane" }), ID, Ok(200, HEALTH_RESPONSE), NOT_FOUND, INVALID),
  purgeCache: () =>
    applyDecorators(ApiOperation({ summary: "Drop the route's response-cache entries on every data plane" }), ID, NoContent('Purged (also when nothing was cached)'), NOT_FOUND, INVALID, UNAVAILABLE),
};
