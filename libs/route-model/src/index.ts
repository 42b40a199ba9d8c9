// The route schema shared by the API, `config:validate`, the config loader and the data plane
// (style guide: "Schema as data"). Nothing here imports node or npm packages.
export * from './route.types';
export * from './proxy-config.types';
export { API_VERSION, CONFIG_SCHEMA_VERSION } from './versions';
export { ROUTE_DEFAULTS } from './route-defaults';
export { PROXY_DEFAULTS, UPSTREAM_BREAKER_DEFAULTS, SESSION_CACHE_TTL_DEFAULT } from './proxy-defaults';
export { ROUTE_MODEL_ERROR_CODES, type RouteModelErrorCode } from './error-codes';
export { MANAGEMENT_PATH_PREFIXES, reservedPathError } from './management-paths';
export { MANAGEMENT_SECRET_VARIABLES, isManagementSecretVariable } from './management-secrets';
export { normalizeRoute, type NormalizeOptions } from './normalize-route';
export { validateRoute } from './validate-route';
export { canonicalRouteInput } from './breaker-threshold';
export { validateProxyConfig } from './validate-proxy-config';
export { parseByteSize } from './byte-size';
export { generateRouteId, ROUTE_ID_PATTERN } from './route-id';
export { fieldPathSegments } from './field-path';
export { diffRoutes, type RouteDiff } from './route-diff';
export { deepEqual } from './deep-equal';
export { compilePathPattern, type CompiledPathPattern } from './path-pattern';
export { createRouteMatcher, routeMatcherSteps, type RouteMatch, type RouteMatcher, type RouteMatcherEntry, type UpdatableRouteMatcher } from './route-matcher';
export { rewriteUpstreamPath } from './upstream-path';
export { HEADER_TEMPLATE_VARIABLES, isIpOrCidr, type HeaderTemplateVariable } from './field-checks';
export { parseBasicHash, type BasicHashParts } from './basic-hash';
export { routeNumberBounds } from './route-field-bounds';
export { ROUTE_JSON_SCHEMA, ROUTE_INPUT_JSON_SCHEMA, fieldSpecToJsonSchema, type JsonSchema, type JsonSchemaForm } from './route-json-schema';
export { compileCorsOrigins } from './cors-origin';
export { MAX_ACCESS_LIST_ENTRIES } from './cross-field-rules';
export { CONFIG_POLICY_FIELDS, DEFAULTED_POLICY_FIELDS, POLICY_ROUTE_FIELDS, UPSTREAM_POLICY_FIELDS, type PolicyRouteField } from './policy-fields';
