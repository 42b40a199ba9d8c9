import type { AccessLogSettings, OtlpExportSettings, TracingSettings } from './proxy-config.types';
import { bool, int, map, num, obj, str, type Issue } from './field-spec';
import { envNameCheck, HEADER_NAME, httpUrlCheck } from './field-checks';
import { isManagementSecretVariable } from './management-secrets';
import { PROXY_DEFAULTS } from './proxy-defaults';

/** `proxy.accessLog` and `proxy.tracing` (docs/tracing.md): read at boot, like the rest of `proxy`. */

const T = PROXY_DEFAULTS.tracing;
const MINUTE_MS = 60_000;

/** A collector header's value is read from the environment; never one of the gateway's own secrets. */
function otlpHeaderEnvCheck(value: string, label: string): Issue | undefined {
  const invalid = envNameCheck(value, label);
  if (invalid !== undefined) return invalid;
  return isManagementSecretVariable(value) ? { message: `${label} may not name ${value}: it is one of the gateway's own secrets and would be sent to the collector` } : undefined;
}

export const ACCESS_LOG_SCHEMA = obj<AccessLogSettings>(
  { enabled: bool({ doc: 'one JSON line per request (method, path, route, status, duration, bytes, client, correlation and trace ids) at level info', default: PROXY_DEFAULTS.accessLog.enabled }) },
  { doc: 'access log; off by default (at LOG_LEVEL=debug a debug line with the request headers is written anyway)', fill: true },
);

const OTLP_SCHEMA = obj<OtlpExportSettings>(
  {
    enabled: bool({ doc: 'export sampled spans over OTLP/HTTP (JSON); needs tracing.enabled and endpoint', default: T.otlp.enabled }),
    endpoint: str({ doc: 'the collector traces URL, e.g. http://collector:4318/v1/traces', check: httpUrlCheck }),
    headersFromEnv: map({
      doc: 'headers sent to the collector: header name -> environment variable holding the value (never logged)',
      keyPattern: HEADER_NAME,
      keyMessage: (label) => `${label} is not a valid header name`,
      values: str({ doc: 'environment variable name', check: otlpHeaderEnvCheck }),
    }),
    serviceName: str({ doc: 'service.name of the exported spans', default: T.otlp.serviceName, minLength: 1, maxLength: 256 }),
    timeout: int({ doc: 'ms one export request may take', default: T.otlp.timeout, min: 100, max: MINUTE_MS }),
    maxQueueSize: int({ doc: 'spans held for export; beyond, new spans are dropped and counted', default: T.otlp.maxQueueSize, min: 1, max: 1_000_000 }),
    maxExportBatchSize: int({ doc: 'spans per export request; at most maxQueueSize', default: T.otlp.maxExportBatchSize, min: 1, max: 100_000 }),
    scheduledDelay: int({ doc: 'ms between exports of a partial batch', default: T.otlp.scheduledDelay, min: 10, max: MINUTE_MS }),
  },
  { doc: 'OTLP/HTTP span export', fill: true },
);

export const TRACING_SCHEMA = obj<TracingSettings>(
  {
    enabled: bool({ doc: 'W3C traceparent/tracestate continued or started with a gateway span id on proxied requests', default: T.enabled }),
    samplingRatio: num({ doc: 'share of root traces sampled, 0..1; a parent\'s sampled flag is honoured', default: T.samplingRatio, min: 0, max: 1 }),
    otlp: OTLP_SCHEMA,
  },
  { doc: 'distributed tracing; off by default', fill: true },
);
