import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiResponse } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { DETECTOR_KINDS, EVENT_SEVERITIES, TRENDS } from '@gateway/events';
import { Fails, OkList } from '../openapi/openapi-schemas';

/** OpenAPI descriptions of the events API (documentation only; docs/events.md has every rule). */

/** The spec 6.1 event object: `data` of a detector event's envelope. */
export const DETECTOR_EVENT_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['type', 'severity', 'summary', 'confidence', 'data'],
  properties: {
    type: { type: 'string', enum: [...DETECTOR_KINDS] },
    severity: { type: 'string', enum: [...EVENT_SEVERITIES] },
    summary: { type: 'string' },
    confidence: { type: 'number', minimum: 0, maximum: 1, description: 'Defined per detector (docs/events.md)' },
    data: {
      type: 'object',
      required: ['current_value', 'threshold', 'breach_ratio', 'trend'],
      properties: { current_value: { type: 'number' }, threshold: { type: 'number' }, breach_ratio: { type: 'number' }, trend: { type: 'string', enum: [...TRENDS] } },
    },
    context: { type: 'object', description: 'Kind-specific: route, incident_id; COST_ALERT top_clients and time_to_monthly_limit; CAPACITY_WARNING resourceType; RECOVERY_SIGNAL recovery_status...' },
  },
};

const EVENT_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['id', 'type', 'createdAt', 'data'],
  properties: {
    id: { type: 'string', description: 'The event id (webhook-id of its deliveries)' },
    type: { type: 'string', example: 'ERROR_RATE_SPIKE' },
    createdAt: { type: 'string', format: 'date-time' },
    data: { oneOf: [DETECTOR_EVENT_SCHEMA, { type: 'object', description: 'circuit_breaker.opened: breaker, kind, routeIds, reason, instanceId, instanceIds; webhook.endpoint_disabled: webhookId, url, reason' }] },
  },
};

export const EventsDocs = {
  list: () =>
    applyDecorators(
      ApiOperation({ summary: 'Stored gateway events, newest first, filtered by type, severity, route and time; paginated' }),
      OkList(EVENT_SCHEMA),
      Fails(400, 'VALIDATION_ERROR: details.fields names the bad query parameter'),
    ),
  stream: () =>
    applyDecorators(
      ApiOperation({ summary: 'Server-Sent Events: each event as it is stored (any instance); authenticated by the Authorization header' }),
      ApiHeader({ name: 'Last-Event-ID', required: false, description: 'The id of the last frame received (when it was stored, epoch ms); events stored since are sent first (at most an hour back)' }),
      ApiProduces('text/event-stream'),
      ApiResponse({ status: 200, description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string', example: 'id: 1790000000000\nevent: ERROR_RATE_SPIKE\ndata: {"id":"evt_...","type":"ERROR_RATE_SPIKE","createdAt":"...","data":{...}}\n\n' } } } }),
      Fails(400, 'a query parameter was given (it takes none)'),
      Fails(503, 'too many streams are open on this control-plane instance'),
    ),
};
