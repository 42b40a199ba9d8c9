import type { SchemaObject } from '@nestjs/swagger';

const SEVERITY: SchemaObject = { type: 'string', enum: ['INFO', 'WARNING', 'CRITICAL'] };
const STATUS: SchemaObject = { type: 'string', enum: ['open', 'acknowledged', 'mitigated', 'resolved'] };

export const INCIDENT_BODY_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    title: { type: 'string', maxLength: 200 },
    status: STATUS,
    severity: SEVERITY,
    routes: { type: 'array', items: { type: 'string' }, maxItems: 50 },
    upstreams: { type: 'array', items: { type: 'string' }, maxItems: 50 },
    hypothesis: { type: 'string', nullable: true, maxLength: 4000, description: 'The root-cause hypothesis' },
  },
};

export const INCIDENT_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    ...INCIDENT_BODY_SCHEMA.properties,
    timeline: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          at: { type: 'string' },
          kind: { type: 'string', enum: ['event', 'execution', 'approval', 'note', 'analysis', 'status'] },
          by: { type: 'string' },
          text: { type: 'string' },
          eventId: { type: 'string' },
          eventType: { type: 'string' },
          refId: { type: 'string' },
        },
      },
    },
    lastEventAt: { type: 'string' },
    resolvedAt: { type: 'string', nullable: true },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
};

export const NOTE_BODY_SCHEMA: SchemaObject = { type: 'object', required: ['text'], properties: { text: { type: 'string', maxLength: 4000 } } };
