import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, type SchemaObject } from '@nestjs/swagger';

/** OpenAPI descriptions of the spec 4.2 ops endpoints (no envelope: they are not under /api). */

const UP_DOWN: SchemaObject = { type: 'string', enum: ['UP', 'DOWN'] };
const HEALTH: SchemaObject = {
  type: 'object',
  required: ['status', 'timestamp', 'version'],
  properties: { status: { type: 'string', enum: ['UP'] }, timestamp: { type: 'string', format: 'date-time' }, version: { type: 'string' } },
};
const READINESS: SchemaObject = {
  type: 'object',
  required: ['status', 'checks', 'timestamp'],
  properties: {
    status: UP_DOWN,
    checks: { type: 'object', required: ['database'], properties: { database: UP_DOWN, redis: { ...UP_DOWN, description: 'Present when REDIS_URL is set' } } },
    timestamp: { type: 'string', format: 'date-time' },
  },
};
/** Either readiness probe of a stopping process (docs/deployment.md, "Graceful drain"). */
const DRAINING: SchemaObject = {
  type: 'object',
  required: ['status', 'draining', 'timestamp'],
  properties: { status: { type: 'string', enum: ['DOWN'] }, draining: { type: 'boolean', enum: [true] }, timestamp: { type: 'string', format: 'date-time' } },
};
const VERSION: SchemaObject = {
  type: 'object',
  required: ['name', 'version', 'apiVersion', 'configVersion', 'node', 'uptime'],
  properties: {
    name: { type: 'string', example: 'gateway' },
    version: { type: 'string' },
    apiVersion: { type: 'string', description: 'X-API-Version' },
    configVersion: { type: 'string', description: 'X-Config-Version' },
    node: { type: 'string', example: 'v20.20.2' },
    uptime: { type: 'number', description: 'Seconds since the process started' },
  },
};

export const OpsDocs = {
  metrics: () =>
    applyDecorators(
      ApiOperation({ summary: 'Prometheus metrics of the control-plane role: gateway_config_revision, gateway_routes (one process: the data plane answers)' }),
      ApiProduces('text/plain'),
      ApiResponse({ status: 200, description: 'Prometheus text exposition format 0.0.4', schema: { type: 'string' } }),
    ),
  version: () => applyDecorators(ApiOperation({ summary: 'Gateway, API and configuration schema versions (spec 4.2)' }), ApiResponse({ status: 200, schema: VERSION })),
  health: () => applyDecorators(ApiOperation({ summary: 'Liveness: the process answers (spec 4.2)' }), ApiResponse({ status: 200, schema: HEALTH })),
  serving: () =>
    applyDecorators(
      ApiOperation({ summary: 'Kubernetes readiness probe: the process serves API calls (ignores Redis)' }),
      ApiResponse({ status: 200, schema: HEALTH }),
      ApiResponse({ status: 503, description: 'Stopping: draining after SIGTERM', schema: DRAINING }),
    ),
  ready: () =>
    applyDecorators(
      ApiOperation({ summary: "Readiness: the database's and (when configured) Redis's checks" }),
      ApiResponse({ status: 200, description: 'Every check UP', schema: READINESS }),
      ApiResponse({ status: 503, description: 'A check is DOWN (status DOWN), or the process is draining after SIGTERM', schema: { oneOf: [READINESS, DRAINING] } }),
    ),
};
