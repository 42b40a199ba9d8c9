import type { SchemaObject } from '@nestjs/swagger';

export const AI_SETTINGS_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    baseUrl: { type: 'string', nullable: true, example: 'https://api.openai.com/v1', description: 'OpenAI-compatible API; null: the built-in analyzer answers' },
    model: { type: 'string', default: 'gpt-4o-mini' },
    apiKey: { type: 'string', nullable: true, writeOnly: true, description: 'Write-only, encrypted at rest; reads as ******** when set. Left out or ******** keeps it, null removes it' },
    timeoutMs: { type: 'integer', minimum: 1000, maximum: 120000, default: 20000 },
    maxTokens: { type: 'integer', minimum: 100, maximum: 32000, default: 1500 },
    monthlyBudgetUsd: { type: 'number', minimum: 0, default: 20 },
    inputUsdPerMillionTokens: { type: 'number', minimum: 0, default: 0.15 },
    outputUsdPerMillionTokens: { type: 'number', minimum: 0, default: 0.6 },
    includeClientAddresses: { type: 'boolean', default: false, description: 'Client addresses stay out of the context unless true' },
  },
};

export const ASSISTANT_SETTINGS_SCHEMA: SchemaObject = {
  type: 'object',
  properties: { temperature: { type: 'number', minimum: 0, maximum: 2, default: 0.2 }, extraInstructions: { type: 'string', maxLength: 4000, default: '' } },
};

export const ANALYSIS_REQUEST_SCHEMA: SchemaObject = {
  type: 'object',
  properties: { incidentId: { type: 'string' }, from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' } },
  description: 'An incident, or a window (default: the last hour; at most 7 days)',
};

export const ANALYSIS_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    answeredBy: { type: 'string', enum: ['provider', 'built-in'] },
    fallbackReason: { type: 'string', nullable: true },
    model: { type: 'string', nullable: true },
    costUsd: { type: 'number' },
    incidentId: { type: 'string', nullable: true },
    window: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' } } },
    summary: { type: 'string' },
    causes: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          cause: { type: 'string' },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
          evidence: { type: 'array', items: { type: 'object', properties: { kind: { type: 'string', enum: ['event', 'metric', 'config-change'] }, ref: { type: 'string' }, detail: { type: 'string' } } } },
        },
      },
    },
    suggestedActions: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' } }, additionalProperties: true }, description: 'Runbook actions, suggested only: never run by the analysis' },
  },
};

export const AI_STATUS_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    provider: { type: 'object', properties: { configured: { type: 'boolean' }, model: { type: 'string', nullable: true } } },
    budget: { type: 'object', properties: { monthlyUsd: { type: 'number' }, spentUsd: { type: 'number' } } },
  },
};
