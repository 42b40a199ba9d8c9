import { API_VERSION, CONFIG_SCHEMA_VERSION } from '@gateway/route-model';

/** Spec 9.2: on every response, proxied or local. */
export const VERSION_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-api-version': API_VERSION,
  'x-config-version': CONFIG_SCHEMA_VERSION,
});
