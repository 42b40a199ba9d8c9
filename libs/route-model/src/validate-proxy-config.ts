import type { FieldError, Route, ValidationResult } from './route.types';
import type { ProxyConfig, SessionAuthenticationConfig, UpstreamDefinition } from './proxy-config.types';
import { crossFieldErrors, healthCheckTimingRule, type CrossFieldRule } from './cross-field-rules';
import { ROUTE_MODEL_ERROR_CODES } from './error-codes';
import { appendIndex, appendKey, ROOT_FIELD } from './field-path';
import { fileRouteIds } from './file-route-ids';
import { normalizeRoute } from './normalize-route';
import { AUTHENTICATION_SCHEMA, PROVIDER_BLOCK_KEYS, PROXY_CONFIG_SCHEMA } from './proxy-config.schema';
import { generateRouteId } from './route-id';
import { FAILED, isPlainObject, report, walkField, walkObjectFields, type WalkContext } from './schema-walker';

type Config = Omit<ProxyConfig, 'routes' | 'authentication'>;

const CONFIG_RULES: ReadonlyArray<CrossFieldRule<Config>> = [
  {
    field: 'proxy.headersTimeout',
    // node's http server refuses to start when headersTimeout exceeds requestTimeout.
    check: ({ proxy }) =>
      proxy?.headersTimeout !== undefined && proxy.requestTimeout !== undefined && proxy.headersTimeout > proxy.requestTimeout
        ? 'proxy.headersTimeout must not exceed proxy.requestTimeout'
        : undefined,
  },
];

/**
 * A parsed proxy.yml document (spec 2.6) -> a ProxyConfig with canonical routes and every default
 * filled, or every problem in the file at once, each on its field path (`routes[2].timeout.request`).
 */
export function validateProxyConfig(doc: unknown): ValidationResult<ProxyConfig> {
  if (!isPlainObject(doc)) {
    return { ok: false, errors: [{ field: ROOT_FIELD, message: 'configuration must be an object (a YAML mapping)', code: ROUTE_MODEL_ERROR_CODES.VALIDATION_ERROR }] };
  }
  const errors: FieldError[] = [];
  const ctx: WalkContext = { mode: 'normalize', prefix: '', rootLabel: 'configuration', errors, skip: new Set(['routes', 'authentication']) };
  const config = walkObjectFields(PROXY_CONFIG_SCHEMA, doc, '', '', ctx) as Partial<Config>;
  errors.push(...upstreamNameErrors(doc.upstreams));
  config.upstreams?.forEach((_, i) => errors.push(...crossFieldErrors([upstreamHealthRule(i)], config, '', errors)));
  errors.push(...crossFieldErrors(CONFIG_RULES, config, '', errors));
  const authentication = readAuthentication(doc.authentication, ctx);
  const routes = readRoutes(doc.routes, doc.upstreams, errors);
  if (errors.length > 0) return { ok: false, errors };
  const value = { ...(config as Config), routes };
  return { ok: true, value: authentication === undefined ? value : { ...value, authentication } };
}

function upstreamHealthRule(i: number): CrossFieldRule<Config> {
  return healthCheckTimingRule<Config>(`upstreams[${i}].healthCheck`, (config) => config.upstreams?.[i]?.healthCheck);
}

function upstreamNameErrors(raw: unknown): FieldError[] {
  if (!Array.isArray(raw)) return [];
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  raw.forEach((upstream: unknown, i) => {
    if (!isPlainObject(upstream) || typeof upstream.name !== 'string') return;
    if (seen.has(upstream.name)) {
      errors.push({ field: `upstreams[${i}].name`, message: `Duplicate upstream name '${upstream.name}'`, code: ROUTE_MODEL_ERROR_CODES.VALIDATION_ERROR });
    }
    seen.add(upstream.name);
  });
  return errors;
}

/**
 * Routes through normalizeRoute (source file, stable ids, upstream names), then decision 9:
 * two enabled routes may not share a path; the later one is reported.
 */
function readRoutes(raw: unknown, rawUpstreams: unknown, errors: FieldError[]): Route[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    errors.push({ field: 'routes', message: 'routes must be an array', code: ROUTE_MODEL_ERROR_CODES.VALIDATION_ERROR });
    return [];
  }
  const upstreams = upstreamReferences(rawUpstreams);
  const ids = fileRouteIds(raw);
  const routes: Route[] = [];
  const idAt = new Map<string, number>();
  const pathAt = new Map<string, number>();
  raw.forEach((input: unknown, i) => {
    const field = appendIndex('routes', i);
    const result = normalizeRoute(input, { upstreams, fieldPrefix: field, source: 'file', generateId: () => ids[i] ?? generateRouteId() });
    if (!result.ok) {
      errors.push(...result.errors);
      return;
    }
    const route = result.value;
    const sameId = idAt.get(route.id);
    if (sameId !== undefined) {
      errors.push({ field: `${field}.id`, message: `Duplicate route id '${route.id}' (also routes[${sameId}])`, code: ROUTE_MODEL_ERROR_CODES.VALIDATION_ERROR });
    } else idAt.set(route.id, i);
    if (route.enabled) {
      if (pathAt.has(route.path)) errors.push({ field: `${field}.path`, message: 'Path already exists', code: ROUTE_MODEL_ERROR_CODES.PATH_EXISTS });
      else pathAt.set(route.path, i);
    }
    routes.push(route);
  });
  return routes;
}

/**
 * Every declared name, even one whose entry has other errors (those are reported at the entry),
 * so a route naming it is not also called unknown.
 */
function upstreamReferences(raw: unknown): UpstreamDefinition[] {
  if (!Array.isArray(raw)) return [];
  const out: UpstreamDefinition[] = [];
  for (const upstream of raw) {
    if (isPlainObject(upstream) && typeof upstream.name === 'string') {
      out.push({ name: upstream.name, url: typeof upstream.url === 'string' ? upstream.url : '' });
    }
  }
  return out;
}

/**
 * Spec 2.6: provider fields may sit inline or in a block named by the provider
 * (`provider: acme` + `acme: { apiUrl }`). The block is merged inline; errors keep its path.
 */
function readAuthentication(raw: unknown, ctx: WalkContext): SessionAuthenticationConfig | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isPlainObject(raw)) {
    report(ctx, 'authentication', 'authentication must be an object');
    return undefined;
  }
  const working: Record<string, unknown> = { ...raw };
  const rename = new Map<string, string>();
  const provider = raw.provider;
  let blockPath: string | undefined;
  if (typeof provider === 'string' && !Object.hasOwn(AUTHENTICATION_SCHEMA.fields, provider) && Object.hasOwn(raw, provider)) {
    blockPath = appendKey('authentication', provider);
    mergeProviderBlock(raw[provider], raw, working, blockPath, rename, ctx);
    delete working[provider];
  }
  const walked = walkField(AUTHENTICATION_SCHEMA, working, 'authentication', 'authentication', { ...ctx, rename });
  if (walked === FAILED || !isPlainObject(walked)) return undefined;
  const auth = walked as Partial<SessionAuthenticationConfig>;
  if (auth.enabled && auth.provider !== undefined && auth.apiUrl === undefined && !Object.hasOwn(working, 'apiUrl')) {
    report(ctx, blockPath === undefined ? 'authentication.apiUrl' : appendKey(blockPath, 'apiUrl'), 'authentication.apiUrl is required when authentication.provider is set');
  }
  if (auth.fallbackAuth?.enabled && auth.fallbackAuth.methods?.length === 0) {
    report(ctx, rename.get('authentication.fallbackAuth') ?? 'authentication.fallbackAuth', 'authentication.fallbackAuth.methods must list basic and/or apiKey when fallbackAuth is enabled');
  }
  return auth as SessionAuthenticationConfig;
}

function mergeProviderBlock(
  block: unknown,
  raw: Record<string, unknown>,
  working: Record<string, unknown>,
  blockPath: string,
  rename: Map<string, string>,
  ctx: WalkContext,
): void {
  if (!isPlainObject(block)) {
    report(ctx, blockPath, `${blockPath} must be an object`);
    return;
  }
  for (const key of Object.keys(block)) {
    const at = appendKey(blockPath, key);
    if (!PROVIDER_BLOCK_KEYS.includes(key)) report(ctx, at, 'Unknown field');
    else if (Object.hasOwn(raw, key)) report(ctx, at, `${at} is also given as authentication.${key}; give it once`);
    else {
      working[key] = block[key];
      rename.set(appendKey('authentication', key), at);
    }
  }
}
