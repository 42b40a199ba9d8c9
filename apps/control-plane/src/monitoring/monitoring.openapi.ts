import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiResponse } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { Fails, Ok } from '../openapi/openapi-schemas';

/** OpenAPI descriptions of the monitoring API (documentation only; docs/telemetry.md has every rule). */

const OVERVIEW: Record<string, SchemaObject> = {
  requests: { type: 'integer' },
  rps: { type: 'number' },
  errorPercent: { type: 'number', description: '5xx answers, % of requests' },
  p50: { type: 'number', description: 'ms, within 1 % (merged sketch)' },
  p95: { type: 'number' },
  p99: { type: 'number' },
  rateLimitHits: { type: 'integer' },
  cacheHitRatio: { type: 'number', description: '0..1' },
};
const SUMMARY: SchemaObject = {
  type: 'object',
  properties: {
    from: { type: 'string', format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
    windowSeconds: { type: 'integer' },
    reporting: { type: 'integer', description: 'Data planes merged into the latest second' },
    total: { type: 'object', properties: OVERVIEW },
    routes: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          routeId: { type: 'string' },
          ...OVERVIEW,
          breaker: { type: 'string', enum: ['CLOSED', 'OPEN', 'HALF_OPEN'], nullable: true },
          health: { type: 'string', enum: ['Healthy', 'Degraded', 'Unhealthy', 'Unknown'], nullable: true },
        },
      },
    },
  },
};
const SERIES: SchemaObject = {
  type: 'object',
  properties: {
    route: { type: 'string', nullable: true },
    metric: { type: 'string' },
    step: { type: 'string', enum: ['1s', '1m'] },
    points: { type: 'array', items: { type: 'object', properties: { t: { type: 'string', format: 'date-time' }, value: { type: 'number' } } } },
  },
};
const DATA_PLANES: SchemaObject = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      instanceId: { type: 'string' },
      address: { type: 'string', example: '10.0.0.4:8080' },
      version: { type: 'string' },
      configRevision: { type: 'integer' },
      lastReport: { type: 'string', format: 'date-time' },
      status: { type: 'string', enum: ['live', 'stale'], description: 'stale: no telemetry window for 3 s' },
      droppedWindows: { type: 'integer' },
      process: {
        type: 'object',
        properties: { heapUsedBytes: { type: 'integer' }, rssBytes: { type: 'integer' }, eventLoopLagMs: { type: 'number' }, openConnections: { type: 'integer' } },
      },
    },
  },
};

export const MonitoringDocs = {
  stream: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Server-Sent Events: one `second` event a second (id: the second\'s start, epoch ms; data: the merged second), resumable with Last-Event-ID (up to 15 minutes back); ends with an `end` event when the token expires or is revoked',
        description:
          'Authenticated by the Authorization: Bearer header (a fetch-based reader) or the admin UI\'s session cookie; never by a token in the URL. ' +
          'A second is sent once every live data plane has reported it (or it is sealed), with exact counts. An open stream counts once against the admin rate-limit tier.',
      }),
      ApiHeader({ name: 'Last-Event-ID', required: false, description: 'The id of the last event received; the missed seconds are sent first' }),
      ApiProduces('text/event-stream'),
      ApiResponse({ status: 200, description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string', example: 'id: 1790000000000\nevent: second\ndata: {"start":1790000000000,...}\n\n' } } } }),
      Fails(400, 'a query parameter was given (it takes none)'),
      Fails(503, 'too many streams are open on this control-plane instance'),
    ),
  summary: () =>
    applyDecorators(
      ApiOperation({ summary: 'Cluster traffic over a recent window: totals and a row per route' }),
      Ok(200, SUMMARY),
      Fails(400, 'window is not a duration of at most 15 minutes'),
    ),
  series: () =>
    applyDecorators(
      ApiOperation({ summary: 'One metric of a route (or the total) at 1 s (last 15 minutes) or 1 min (last 24 hours)' }),
      Ok(200, SERIES),
      Fails(400, 'metric, step, from or to invalid (the error names the field)'),
    ),
  dataPlanes: () =>
    applyDecorators(ApiOperation({ summary: 'The data planes that report telemetry, live or stale' }), Ok(200, DATA_PLANES), Fails(400, 'a query parameter was given (it takes none)')),
};
