import type { RouteDefaultsSettings } from '../settings/general-settings.section';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Settings `general.routeDefaults` for a route created through the API: what the body leaves out
 * of `timeout.request` and `retry.attempts` takes the configured default instead of the route
 * model's. Whatever the body says, in either variant (decision 6: `timeout` as a number,
 * `retryAttempts`), wins; the route model still validates the result.
 */
export function withCreationDefaults(body: unknown, defaults: RouteDefaultsSettings): unknown {
  if (!isObject(body)) return body;
  const input: Record<string, unknown> = { ...body };
  if (input['timeout'] === undefined) input['timeout'] = { request: defaults.requestTimeoutMs };
  else if (isObject(input['timeout']) && input['timeout']['request'] === undefined) input['timeout'] = { ...input['timeout'], request: defaults.requestTimeoutMs };
  if (input['retryAttempts'] === undefined) {
    if (input['retry'] === undefined) input['retry'] = { attempts: defaults.retryAttempts };
    else if (isObject(input['retry']) && input['retry']['attempts'] === undefined) input['retry'] = { ...input['retry'], attempts: defaults.retryAttempts };
  }
  return input;
}
