/**
 * The fields the settings page edits, as data: where each lives in the document, how it is
 * entered, and what it means. Bounds and rules stay the API's (its field errors land here by
 * path); this list only says how to show them.
 */
export type FieldKind = 'text' | 'number' | 'boolean' | 'lines' | 'pem-list' | 'multiline' | 'secret' | 'log-level';

export interface SettingsField {
  /** Path in the document, as the API names it in field errors: `general.instanceName`. */
  path: string;
  label: string;
  kind: FieldKind;
  help?: string;
}

export interface SettingsGroup {
  title: string;
  fields: SettingsField[];
}

export const SETTINGS_GROUPS: SettingsGroup[] = [
  {
    title: 'General',
    fields: [
      { path: 'general.instanceName', label: 'Instance name', kind: 'text' },
      { path: 'general.tokenLifetimeSeconds', label: 'Management token lifetime (seconds)', kind: 'number' },
      { path: 'general.routeDefaults.requestTimeoutMs', label: 'Default request timeout for new routes (ms)', kind: 'number' },
      { path: 'general.routeDefaults.retryAttempts', label: 'Default retry attempts for new routes', kind: 'number' },
      { path: 'general.allowedOrigins', label: 'Allowed CORS origins', kind: 'lines', help: 'One origin a line, added to ALLOWED_ORIGINS.' },
      { path: 'general.logLevel', label: 'Log level', kind: 'log-level' },
      { path: 'general.eventRetentionDays', label: 'Event retention (days)', kind: 'number' },
      { path: 'general.webhookDeliveryRetentionDays', label: 'Webhook delivery retention (days)', kind: 'number' },
    ],
  },
  {
    title: 'Single sign-on (SAML)',
    fields: [
      { path: 'sso.enabled', label: 'SSO enabled (replaces authentication.sso of proxy.yml)', kind: 'boolean' },
      { path: 'sso.idpMetadataXml', label: 'IdP metadata XML', kind: 'multiline', help: 'Paste the IdP metadata to import its entity ID, URLs and certificates; fields below win over it.' },
      { path: 'sso.idpEntityId', label: 'IdP entity ID', kind: 'text' },
      { path: 'sso.idpSsoUrl', label: 'IdP SSO URL', kind: 'text' },
      { path: 'sso.idpSloUrl', label: 'IdP single logout URL', kind: 'text' },
      { path: 'sso.idpCertificates', label: 'IdP certificates (PEM)', kind: 'pem-list', help: 'Several during a key rotation.' },
      { path: 'sso.spEntityId', label: 'SP entity ID', kind: 'text', help: 'Empty: <ACS URL origin>/api/auth/saml/metadata.' },
      { path: 'sso.acsUrl', label: 'ACS URL', kind: 'text', help: 'https://<gateway>/api/auth/saml/callback' },
      { path: 'sso.spPrivateKey', label: 'SP signing key (PEM)', kind: 'secret', help: 'Write-only. Leave as is to keep the stored key; clear to remove it.' },
      { path: 'sso.spCertificate', label: 'SP certificate (PEM)', kind: 'multiline' },
      { path: 'sso.clockSkewSeconds', label: 'Clock skew (seconds)', kind: 'number' },
      { path: 'sso.returnUrl', label: 'Default return URL', kind: 'text' },
      { path: 'sso.allowedReturnUrls', label: 'Allowed return URLs', kind: 'lines' },
      { path: 'sso.emailAttribute', label: 'Email attribute', kind: 'text', help: 'Empty: the NameID is the email.' },
      { path: 'sso.nameAttribute', label: 'Name attribute', kind: 'text' },
      { path: 'sso.groupsAttribute', label: 'Groups attribute', kind: 'text' },
      { path: 'sso.adminGroups', label: 'Groups that map to the admin role', kind: 'lines' },
      { path: 'sso.allowIdpInitiated', label: 'Allow IdP-initiated login', kind: 'boolean' },
    ],
  },
];

export const LOG_LEVEL_CHOICES = ['', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];

export function readPath(document: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined), document);
}

export function writePath(document: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let target = document;
  for (const key of keys.slice(0, -1)) {
    if (typeof target[key] !== 'object' || target[key] === null) target[key] = {};
    target = target[key] as Record<string, unknown>;
  }
  target[keys[keys.length - 1] as string] = value;
}

/** What a form control shows for a stored value. */
export function toInput(kind: FieldKind, value: unknown): string {
  if (kind === 'lines') return Array.isArray(value) ? value.join('\n') : '';
  if (kind === 'pem-list') return Array.isArray(value) ? value.join('\n') : '';
  if (value === null || value === undefined) return '';
  return String(value);
}

/** What the API gets for a form control's text (the API validates; this only shapes). */
export function fromInput(kind: FieldKind, text: string): unknown {
  switch (kind) {
    case 'number':
      return text.trim() === '' ? null : Number(text);
    case 'lines':
      return text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
    case 'pem-list':
      return text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? (text.trim() === '' ? [] : [text.trim()]);
    case 'log-level':
    case 'multiline':
    case 'text':
      return text.trim() === '' ? null : text;
    default:
      return text;
  }
}
