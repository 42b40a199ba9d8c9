import type { JsonSchema } from '@gateway/route-model';
import { fieldName, valueAt, type Draft, type FieldPath } from './draft';

/**
 * What the schema cannot say about showing a field: a few clearer labels, the auth types this
 * gateway does not offer yet, and which sub-blocks belong to which auth type. Everything else
 * (help text, bounds, defaults) comes from the route model's JSON Schema.
 */
const LABELS: Readonly<Record<string, string>> = {
  upstream: 'Upstream URL or upstream name',
  stripPath: 'Strip the matched prefix',
  windowMs: 'Window (ms)',
  ttl: 'Time to live (ms)',
  url: 'Health check URL',
  jwt: 'JWT',
  apiKey: 'API key',
  keepAlive: 'Keep-alive timeout (ms)',
  request: 'Request',
  response: 'Response',
  set: 'Set (Name: value)',
  add: 'Add (Name: value)',
  remove: 'Remove (names)',
  query: 'Query parameters (name: value)',
  secretEnv: 'Secret environment variable',
};

/** Spec 2.1's UI lists OAuth 2.0 and custom auth; the gateway does not implement them yet. */
const UNAVAILABLE: Readonly<Record<string, readonly string[]>> = { 'auth.type': ['oauth2', 'custom'] };

/** Fields of the proxy.yml session form (spec 5.4), kept when present but not offered here. */
const HIDDEN = new Set(['auth.required', 'auth.provider', 'auth.allowAnonymous']);

/** Sub-blocks shown only for one value of a sibling. */
const SHOWN_WHEN: Readonly<Record<string, { field: string; equals: string }>> = {
  'auth.jwt': { field: 'auth.type', equals: 'jwt' },
  'auth.basic': { field: 'auth.type', equals: 'basic' },
};

/** What the admin should know beside the schema's own text. */
const NOTES: Readonly<Record<string, string>> = {
  // docs/resilience.md: only statuses are configurable; a breaker must see a dead upstream.
  'circuitBreaker.errorStatuses': 'Network errors and upstream timeouts always count as failures.',
  'auth.type': 'OAuth 2.0 and custom authentication are not available yet.',
};

export interface Presentation {
  label: string;
  help: string;
  placeholder: string;
  /** Absent is allowed: an object block gets a switch, a value may be cleared. */
  optional: boolean;
  unavailable: readonly string[];
}

export function fieldPresentation(schema: JsonSchema, path: FieldPath, draft?: Draft): Presentation {
  const name = fieldName(path);
  const key = path.at(-1) ?? '';
  return {
    label: LABELS[key] ?? humanize(key),
    help: [helpText(schema), NOTES[name] ?? ''].filter((part) => part !== '').join(' '),
    placeholder: placeholderFor(schema, name, draft),
    optional: schema.type === 'object' && schema.properties !== undefined,
    unavailable: UNAVAILABLE[name] ?? [],
  };
}

export function isShown(path: FieldPath, draft: Draft): boolean {
  const name = fieldName(path);
  if (HIDDEN.has(name)) return false;
  const rule = SHOWN_WHEN[name];
  return rule === undefined || valueAt(draft, rule.field.split('.')) === rule.equals;
}

/** The description, then the bounds and the default, as the schema states them. */
function helpText(schema: JsonSchema): string {
  const description = capitalize(schema.description ?? '');
  const parts = [description === '' || /\.$/.test(description) ? description : `${description}.`];
  if (schema.minimum !== undefined || schema.maximum !== undefined) {
    const low = schema.minimum === undefined ? '' : `${schema.exclusiveMinimum === true ? 'more than' : 'from'} ${schema.minimum}`;
    const high = schema.maximum === undefined ? '' : `${schema.minimum === undefined ? 'at most' : 'to'} ${schema.maximum}`;
    parts.push(`${capitalize([low, high].filter((p) => p !== '').join(' '))}.`);
  }
  if (schema.maxLength !== undefined) parts.push(`At most ${schema.maxLength} characters.`);
  if (schema.default !== undefined && !(Array.isArray(schema.default) && schema.default.length === 0) && schema.default !== '') {
    parts.push(`Default: ${Array.isArray(schema.default) ? schema.default.join(', ') : String(schema.default)}.`);
  }
  const values = typeof schema.additionalProperties === 'object' ? schema.additionalProperties.description : undefined;
  // Said once: a header map's description may already list the variables its values may use.
  if (values !== undefined && !parts[0]?.includes(values.split('; ').at(-1) ?? values)) parts.push(`Values: ${values}.`);
  return parts.filter((p) => p !== '').join(' ');
}

function placeholderFor(schema: JsonSchema, name: string, draft: Draft | undefined): string {
  // Spec 2.4: without a URL the check probes the upstream plus /health.
  if (name === 'healthCheck.url' && draft !== undefined && typeof draft['upstream'] === 'string' && draft['upstream'] !== '') {
    return `${draft['upstream'].replace(/\/+$/, '')}/health`;
  }
  if (name === 'path') return '/users/*';
  if (name === 'upstream') return 'http://users.internal:8080';
  return typeof schema.default === 'string' ? schema.default : '';
}

function humanize(key: string): string {
  return capitalize(key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase());
}

function capitalize(text: string): string {
  return text === '' ? text : `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;
}
