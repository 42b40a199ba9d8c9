import { UPSTREAM_SCHEMA } from './proxy-config.schema';
import { fieldSpecToJsonSchema, type JsonSchema } from './route-json-schema';

const CANONICAL = fieldSpecToJsonSchema(UPSTREAM_SCHEMA);

/**
 * An upstream as the API answers it (normalizeUpstream's result): `url` folded into `targets`,
 * which is therefore always present. The control plane's OpenAPI document reads it.
 */
export const UPSTREAM_JSON_SCHEMA: JsonSchema = {
  ...CANONICAL,
  properties: Object.fromEntries(Object.entries(CANONICAL.properties ?? {}).filter(([key]) => key !== 'url')),
  required: [...new Set([...(CANONICAL.required ?? []), 'targets'])],
};

/** An upstream as a client may send it (POST, PUT): `name`, and `url` or `targets` (one of them). */
export const UPSTREAM_INPUT_JSON_SCHEMA: JsonSchema = fieldSpecToJsonSchema(UPSTREAM_SCHEMA, 'input');
