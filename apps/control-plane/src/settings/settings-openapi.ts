import type { SchemaObject } from '@nestjs/swagger';
import { LOG_LEVELS, MAX_TOKEN_LIFETIME_SECONDS } from '../config/control-plane-config';

/** The general section as documented; other sections add themselves as they are built (docs/settings.md). */
const GENERAL_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    instanceName: { type: 'string', minLength: 1, maxLength: 100, default: 'API Gateway', description: 'Display name; trimmed, markup removed' },
    routeDefaults: {
      type: 'object',
      properties: {
        requestTimeoutMs: { type: 'integer', minimum: 100, maximum: 60_000, default: 5000 },
        retryAttempts: { type: 'integer', minimum: 0, maximum: 10, default: 3 },
      },
    },
    tokenLifetimeSeconds: { type: 'integer', minimum: 300, maximum: MAX_TOKEN_LIFETIME_SECONDS, default: 86_400, description: 'Lifetime of management tokens issued from now on' },
    allowedOrigins: { type: 'array', items: { type: 'string', example: 'https://admin.example.com' }, maxItems: 100, default: [], description: 'Added to ALLOWED_ORIGINS; normalized to scheme://host[:port]' },
    logLevel: { type: 'string', enum: [...LOG_LEVELS], nullable: true, default: null, description: 'null: LOG_LEVEL decides' },
    eventRetentionDays: { type: 'integer', minimum: 1, maximum: 3650, default: 30 },
    webhookDeliveryRetentionDays: { type: 'integer', minimum: 1, maximum: 3650, default: 30 },
  },
};

const nullableString = (description?: string): SchemaObject => ({ type: 'string', nullable: true, default: null, ...(description === undefined ? {} : { description }) });

/** The sso section, owned and validated by the SAML module (saml/sso-settings.section.ts; docs/settings.md). */
const SSO_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    enabled: { type: 'boolean', default: false, description: 'true: replaces authentication.sso of proxy.yml; requires the IdP (fields or metadata) and acsUrl' },
    idpMetadataXml: nullableString('IdP md:EntityDescriptor (at most 256 KiB): entity ID, SSO/SLO URLs and certificates; fields win over it'),
    idpEntityId: nullableString(),
    idpSsoUrl: nullableString('http(s) URL, HTTP-Redirect binding'),
    idpSloUrl: nullableString('http(s) URL: single logout'),
    idpCertificates: { type: 'array', items: { type: 'string', description: 'PEM certificate' }, maxItems: 10, default: [] },
    spEntityId: nullableString('default <acsUrl origin>/api/auth/saml/metadata'),
    acsUrl: nullableString('https://<gateway>/api/auth/saml/callback'),
    spPrivateKey: { type: 'string', nullable: true, description: 'secret, write-only: reads "********" when set' },
    spCertificate: nullableString('PEM certificate published in the SP metadata'),
    clockSkewSeconds: { type: 'integer', minimum: 0, maximum: 300, default: 60 },
    returnUrl: nullableString(),
    allowedReturnUrls: { type: 'array', items: { type: 'string' }, maxItems: 50, default: [] },
    emailAttribute: nullableString('default: the NameID'),
    nameAttribute: nullableString(),
    groupsAttribute: nullableString(),
    adminGroups: { type: 'array', items: { type: 'string' }, maxItems: 100, default: [] },
    allowIdpInitiated: { type: 'boolean', default: false },
  },
};

/** The sessionService section, owned and validated by the sessions module (sessions/session-service-settings.section.ts). */
const SESSION_SERVICE_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    enabled: { type: 'boolean', default: false, description: "true: replaces proxy.yml's authentication block for management sessions; requires provider and apiUrl" },
    provider: nullableString('1-64 characters'),
    apiUrl: nullableString('http(s) URL of the session service'),
    tenantId: nullableString('sent as X-Tenant-Id'),
    apiKey: { type: 'string', nullable: true, description: 'secret, write-only: sent as Authorization: Bearer; reads "********" when set' },
    cacheTtlSeconds: { type: 'integer', minimum: 0, maximum: 86400, default: 300 },
    timeoutMs: { type: 'integer', minimum: 100, maximum: 30000, default: 2000 },
  },
};

export const SETTINGS_DOCUMENT_SCHEMA: SchemaObject = {
  type: 'object',
  description:
    'One object per section. A PUT replaces the sections it sends and keeps the others. Secret fields read as "********"; send them left out or masked to keep them, null to remove them.',
  properties: {
    general: GENERAL_SCHEMA,
    sso: SSO_SCHEMA,
    sessionService: SESSION_SERVICE_SCHEMA,
    events: { type: 'object', description: 'The detectors\' thresholds and prices, global with per-route overrides (`routes`); fields and bounds in docs/events.md' },
  },
};

/**
 * A feature documents its own section here when its module loads (before the document is built),
 * so settings never imports the features above it.
 */
export function documentSettingsSection(key: string, schema: SchemaObject): void {
  (SETTINGS_DOCUMENT_SCHEMA.properties as Record<string, SchemaObject>)[key] = schema;
}

export const SETTINGS_VIEW_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['version', 'changedAt', 'actor', 'settings'],
  properties: {
    version: { type: 'integer', description: '0 while nothing was saved (the defaults)' },
    changedAt: { type: 'string', format: 'date-time', nullable: true },
    actor: { type: 'string', nullable: true },
    settings: SETTINGS_DOCUMENT_SCHEMA,
  },
};

export const SETTINGS_VERSION_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['version', 'changedAt', 'actor', 'restoredFrom'],
  properties: {
    version: { type: 'integer' },
    changedAt: { type: 'string', format: 'date-time' },
    actor: { type: 'string' },
    restoredFrom: { type: 'integer', nullable: true, description: 'Set when this version restored an older one' },
  },
};
