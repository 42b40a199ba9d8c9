import { nonEmpty, parseCommandArgs } from '../cli-args';
import { EXIT, type Command } from '../command';
import { requestJson, resolveGatewayUrl } from '../gateway-client';
import { loadDotEnv, resolveGatewayPaths } from '../gateway-paths';
import { metricValue } from '../metrics-text';

const OPTIONS = {
  url: { type: 'string', valueName: 'URL', description: 'The gateway to ask (default: $GATEWAY_URL, else the address recorded in <data-dir>/gateway.url)' },
  'data-dir': { type: 'string', valueName: 'DIR', description: "The running gateway's data directory (default: $GATEWAY_DATA_DIR, else ./.gateway)" },
  json: { type: 'boolean', description: 'Print one JSON object instead of text' },
} as const;

interface VersionInfo {
  name?: string;
  version?: string;
  apiVersion?: string;
  configVersion?: string;
  node?: string;
  uptime?: number;
}

interface Readiness {
  status?: string;
  checks?: Record<string, string>;
}

export const statusCommand: Command = {
  name: 'status',
  usage: 'gateway status [--url URL] [--data-dir DIR] [--json]',
  description: [
    'Asks a running gateway for its version (/version), its readiness and checks (/health/ready),',
    'and the routes it serves and the configuration revision it runs (/metrics: gateway_routes,',
    'gateway_config_revision). A control plane (--role control-plane) reports the revision of its',
    'store and the routes it hands out. Needs no credentials: these are the public ops endpoints.',
    'Exit code 0 when the gateway answers and is ready (UP or DEGRADED), 1 when it is not ready or',
    'cannot be reached.',
  ],
  options: OPTIONS,
  examples: ['gateway status', 'gateway status --url http://10.0.0.5:8080 --json'],
  run: async (argv, context) => {
    const { values } = parseCommandArgs('status', argv, OPTIONS);
    loadDotEnv(context);
    const paths = resolveGatewayPaths(context, { dataDir: nonEmpty(values['data-dir'], 'data-dir', 'status') });
    const base = await resolveGatewayUrl(context, nonEmpty(values.url, 'url', 'status'), paths.dataDir);

    const [version, ready, metrics] = await Promise.all([
      requestJson(base, 'GET', '/version'),
      requestJson(base, 'GET', '/health/ready'),
      requestJson(base, 'GET', '/metrics'),
    ]);
    const info = (version.body ?? {}) as VersionInfo;
    const readiness = (ready.body ?? {}) as Readiness;
    const metricsText = typeof metrics.body === 'string' ? metrics.body : '';
    const routes = metricValue(metricsText, 'gateway_routes');
    // The gauge reads 0 until a control plane's revision is applied (proxy.yml-only mode).
    const revision = metricValue(metricsText, 'gateway_config_revision') || undefined;
    const isReady = ready.status === 200;

    if (values.json === true) {
      context.out(JSON.stringify({ url: base.origin, ready: isReady, version: info, readiness, routes: routes ?? null, configRevision: revision ?? null }));
    } else {
      context.out(`Gateway at ${base.origin}`);
      context.out(`  version          ${info.version ?? '?'} (API ${info.apiVersion ?? '?'}, config schema ${info.configVersion ?? '?'}, node ${info.node ?? '?'})`);
      context.out(`  uptime           ${typeof info.uptime === 'number' ? `${Math.round(info.uptime)} s` : '?'}`);
      context.out(`  routes           ${routes ?? 'unknown'}`);
      context.out(`  config revision  ${revision ?? 'none (proxy.yml only)'}`);
      const checks = Object.entries(readiness.checks ?? {}).map(([name, state]) => `${name} ${state}`).join(', ');
      context.out(`  health           ${readiness.status ?? `HTTP ${ready.status}`}${checks === '' ? '' : ` (${checks})`}`);
    }
    return isReady ? EXIT.ok : EXIT.failure;
  },
};
