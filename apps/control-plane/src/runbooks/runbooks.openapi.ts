import type { SchemaObject } from '@nestjs/swagger';

const ACTION: SchemaObject = {
  type: 'object',
  required: ['type'],
  description: 'One action; its parameters depend on `type` (docs/runbooks.md)',
  properties: {
    type: { type: 'string', enum: ['CIRCUIT_BREAKER', 'SCALE_RESOURCE', 'RESTART_POD'] },
    operation: { type: 'string', enum: ['OPEN'], description: 'CIRCUIT_BREAKER' },
    duration: { type: 'integer', minimum: 1, maximum: 86400, description: 'CIRCUIT_BREAKER: seconds held OPEN' },
    routeId: { type: 'string', description: "CIRCUIT_BREAKER: the route (default: the event's route)" },
    replicas: { type: 'integer', minimum: 0, description: 'SCALE_RESOURCE: the count (or delta)' },
    delta: { type: 'integer', description: 'SCALE_RESOURCE: added to the current count' },
    graceful: { type: 'boolean', default: true, description: 'RESTART_POD: wait for each replacement' },
    drainTimeout: { type: 'integer', minimum: 1, maximum: 3600, default: 120, description: 'RESTART_POD: seconds' },
  },
  additionalProperties: true,
};

const SAFETY: SchemaObject = {
  type: 'object',
  properties: {
    requiresApproval: { type: 'boolean', default: true },
    maxExecutionsPerHour: { type: 'integer', minimum: 1, maximum: 100, default: 3 },
    rollbackAfterMinutes: { type: 'number', nullable: true, minimum: 0.05, maximum: 10080, default: null },
    dryRun: { type: 'boolean', default: false },
  },
};

const TRIGGER: SchemaObject = {
  type: 'object',
  required: ['eventType'],
  properties: {
    eventType: { type: 'string', example: 'ERROR_RATE_SPIKE' },
    conditions: {
      type: 'object',
      properties: {
        'confidence.min': { type: 'number', minimum: 0, maximum: 1 },
        'errorRate.min': { type: 'number', minimum: 0, maximum: 1 },
        resourceType: { type: 'string' },
        routeId: { type: 'string' },
        upstream: { type: 'string' },
      },
    },
  },
};

export const RUNBOOK_BODY_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['name', 'trigger', 'actions'],
  properties: { name: { type: 'string', maxLength: 100 }, enabled: { type: 'boolean', default: true }, trigger: TRIGGER, actions: { type: 'array', minItems: 1, maxItems: 10, items: ACTION }, safety: SAFETY },
};

export const RUNBOOK_SCHEMA: SchemaObject = {
  type: 'object',
  properties: { id: { type: 'string', format: 'uuid' }, ...RUNBOOK_BODY_SCHEMA.properties, createdAt: { type: 'string', format: 'date-time' }, updatedAt: { type: 'string', format: 'date-time' } },
};

const ACTION_RESULT: SchemaObject = {
  type: 'object',
  properties: {
    index: { type: 'integer' },
    type: { type: 'string' },
    action: ACTION,
    status: { type: 'string', enum: ['planned', 'dry_run', 'succeeded', 'failed'] },
    description: { type: 'string' },
    outcome: { type: 'object', properties: { status: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' }, followUpAt: { type: 'string' }, undo: { type: 'object' } } },
    followedUp: { type: 'object', properties: { at: { type: 'string' }, message: { type: 'string' } } },
    undone: { type: 'object', properties: { at: { type: 'string' }, message: { type: 'string' } } },
  },
};

export const EXECUTION_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    runbookId: { type: 'string' },
    runbookName: { type: 'string' },
    eventId: { type: 'string' },
    eventType: { type: 'string' },
    event: { type: 'object', description: 'The facts read from the event (confidence, severity, routes, upstreams, ...)' },
    status: { type: 'string', enum: ['pending_approval', 'running', 'succeeded', 'failed', 'rejected', 'expired', 'skipped', 'dry_run', 'rolled_back'] },
    dryRun: { type: 'boolean' },
    reason: { type: 'string', nullable: true, description: 'Why it was skipped (kill switch, an hourly limit)' },
    actions: { type: 'array', items: ACTION_RESULT },
    decidedBy: { type: 'string', nullable: true },
    decidedAt: { type: 'string', nullable: true },
    expiresAt: { type: 'string', nullable: true },
    rollbackAt: { type: 'string', nullable: true },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
};

/** The `runbooks` section of /api/settings. */
export const RUNBOOKS_SETTINGS_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    enabled: { type: 'boolean', default: true, description: 'The kill switch: false records every match as skipped' },
    dryRun: { type: 'boolean', default: false, description: 'Every runbook only records what it would do' },
    maxExecutionsPerHour: { type: 'integer', minimum: 1, maximum: 1000, default: 10, description: 'The global limit over all runbooks (spec 8)' },
    approvalExpirySeconds: { type: 'integer', minimum: 5, maximum: 86400, default: 300 },
    kubernetes: {
      type: 'object',
      description: 'What SCALE_RESOURCE and RESTART_POD work on',
      properties: {
        kubeconfig: { type: 'string', nullable: true, default: null, description: 'A kubeconfig file; null: the in-cluster service account' },
        namespace: { type: 'string', default: 'default' },
        deployment: { type: 'string', default: 'gateway-data-plane' },
        hpa: { type: 'string', nullable: true, default: 'gateway-data-plane' },
        podSelector: { type: 'string', default: 'app.kubernetes.io/name=gateway,app.kubernetes.io/component=data-plane' },
        minReplicas: { type: 'integer', minimum: 0, maximum: 1000, default: 1 },
        maxReplicas: { type: 'integer', minimum: 1, maximum: 1000, default: 20 },
      },
    },
  },
};
