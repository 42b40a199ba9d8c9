import { loadProxyConfig } from '@gateway/data-plane/proxy-config-source';
import { nonEmpty, parseCommandArgs } from '../cli-args';
import { EXIT, type Command } from '../command';
import { formatConfigErrors } from '../config-error-report';
import { loadDotEnv, resolveGatewayPaths } from '../gateway-paths';
import { plural } from '../plural';

const OPTIONS = {
  config: { type: 'string', valueName: 'FILE', description: 'Configuration file (default: $GATEWAY_CONFIG, else ./proxy.yml)' },
} as const;

export const configValidateCommand: Command = {
  name: 'config:validate',
  usage: 'gateway config:validate [--config FILE]',
  description: [
    'Parses the file and checks it with the same route model the running gateway uses. Prints a',
    'one-line summary when it is valid; otherwise every error, one per line, as',
    '`<file>:<line> <field>: <message>`, and exits 1. Starts nothing and signals nothing.',
  ],
  options: OPTIONS,
  examples: ['gateway config:validate', 'gateway config:validate --config deploy/proxy.prod.yml'],
  run: async (argv, context) => {
    const { values } = parseCommandArgs('config:validate', argv, OPTIONS);
    loadDotEnv(context);
    const paths = resolveGatewayPaths(context, { config: nonEmpty(values.config, 'config', 'config:validate') });
    const result = await loadProxyConfig(paths.configPath);
    if (!result.ok) {
      formatConfigErrors(paths.configLabel, result.errors).forEach((line) => context.err(line));
      context.err(`${paths.configLabel}: invalid (${plural(result.errors.length, 'error')})`);
      return EXIT.failure;
    }
    const { routes, upstreams } = result.config;
    context.out(`${paths.configLabel}: valid (${plural(routes.length, 'route')}, ${plural(upstreams.length, 'upstream')})`);
    return EXIT.ok;
  },
};
