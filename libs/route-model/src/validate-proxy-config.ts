import type { FieldError, ValidationResult } from './route.types';
import type { ProxyConfig, UpstreamDefinition } from './proxy-config.types';
import { readAuthentication } from './authentication-block';
import { crossFieldErrors, type CrossFieldRule } from './cross-field-rules';
import { ROUTE_MODEL_ERROR_CODES } from './error-codes';
import { ROOT_FIELD } from './field-path';
import { appendIndex } from './field-path';
import { readFileRoutes } from './file-routes';
import { normalizeUpstream } from './normalize-upstream';
import { PROXY_CONFIG_SCHEMA } from './proxy-config.schema';
import { isPlainObject, walkObjectFields, type WalkContext } from './schema-walker';

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
  {
    field: 'proxy.tls.port',
    check: ({ proxy }) =>
      proxy?.tls !== undefined && proxy.tls.enabled !== false && proxy.tls.port !== 0 && proxy.tls.port === proxy.port
        ? 'proxy.tls.port must differ from proxy.port (HTTP and HTTPS listen side by side)'
        : undefined,
  },
  {
    field: 'proxy.tracing.otlp.endpoint',
    check: ({ proxy }) => (proxy?.tracing?.otlp?.enabled === true && proxy.tracing.otlp.endpoint === undefined ? 'proxy.tracing.otlp.endpoint is required when proxy.tracing.otlp.enabled is true' : undefined),
  },
  {
    field: 'proxy.tracing.otlp.enabled',
    // Spans are made by the trace context: exporting without it would export nothing.
    check: ({ proxy }) => (proxy?.tracing?.otlp?.enabled === true && proxy.tracing.enabled !== true ? 'proxy.tracing.otlp.enabled needs proxy.tracing.enabled: true' : undefined),
  },
  {
    field: 'proxy.tracing.otlp.maxExportBatchSize',
    check: ({ proxy }) => {
      const otlp = proxy?.tracing?.otlp;
      return otlp?.maxExportBatchSize !== undefined && otlp.maxQueueSize !== undefined && otlp.maxExportBatchSize > otlp.maxQueueSize ? 'proxy.tracing.otlp.maxExportBatchSize must not exceed proxy.tracing.otlp.maxQueueSize' : undefined;
    },
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
  const ctx: WalkContext = { mode: 'normalize', prefix: '', rootLabel: 'configuration', errors, skip: new Set(['routes', 'authentication', 'upstreams']) };
  const upstreams = readUpstreams(doc.upstreams, errors);
  const config = { ...walkObjectFields(PROXY_CONFIG_SCHEMA, doc, '', '', ctx), upstreams } as Partial<Config>;
  errors.push(...upstreamNameErrors(doc.upstreams));
  errors.push(...crossFieldErrors(CONFIG_RULES, config, '', errors));
  const authentication = readAuthentication(doc.authentication, ctx);
  const routes = readFileRoutes(doc.routes, doc.upstreams, errors);
  if (errors.length > 0) return { ok: false, errors };
  const value = { ...(config as Config), routes };
  return { ok: true, value: authentication === undefined ? value : { ...value, authentication } };
}

/** Each entry through normalizeUpstream (the validator the upstreams API shares), marked as a file upstream. */
function readUpstreams(raw: unknown, errors: FieldError[]): UpstreamDefinition[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    errors.push({ field: 'upstreams', message: 'upstreams must be an array', code: ROUTE_MODEL_ERROR_CODES.VALIDATION_ERROR });
    return [];
  }
  const out: UpstreamDefinition[] = [];
  raw.forEach((input: unknown, i) => {
    const result = normalizeUpstream(input, appendIndex('upstreams', i));
    if (result.ok) out.push({ ...result.value, source: 'file' });
    else errors.push(...result.errors);
  });
  return out;
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
