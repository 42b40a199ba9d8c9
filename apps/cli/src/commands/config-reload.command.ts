import { setTimeout as sleep } from 'node:timers/promises';
import { loadProxyConfig } from '@gateway/data-plane/proxy-config-source';
import type { ReloadOutcome } from '@gateway/data-plane/data-plane-options';
import { nonEmpty, parseCommandArgs } from '../cli-args';
import { EXIT, type Command, type CommandContext } from '../command';
import { formatConfigErrors } from '../config-error-report';
import { dataFile, readReloadStatus } from '../data-dir-state';
import { displayPath, loadDotEnv, resolveGatewayPaths, type GatewayPaths } from '../gateway-paths';
import { isProcessAlive, looksLikeGateway, readPidFile } from '../pid-file';
import { plural } from '../plural';
import { previewReload } from '../reload-preview';
import { formatRouteDiff } from '../route-diff-report';

const OPTIONS = {
  'dry-run': { type: 'boolean', description: 'Validate and print the route changes; signal nothing' },
  config: { type: 'string', valueName: 'FILE', description: 'Configuration file (default: $GATEWAY_CONFIG, else ./proxy.yml); the one the gateway runs with' },
  'data-dir': { type: 'string', valueName: 'DIR', description: "The running gateway's data directory (default: $GATEWAY_DATA_DIR, else ./.gateway)" },
} as const;

/** How long to wait for the gateway's answer after SIGHUP, and how often to look. */
const ANSWER_TIMEOUT_MS = 10_000;
const POLL_INTERVAL_MS = 100;

export const configReloadCommand: Command = {
  name: 'config:reload',
  usage: 'gateway config:reload [--dry-run] [--config FILE] [--data-dir DIR]',
  description: [
    'Validates the configuration (every error, as config:validate prints them), then lists the',
    'routes it adds, changes (with the changed fields) and removes. With a control plane (roles',
    'all and control-plane) the diff is against the file routes in its store, read from the same',
    'database ($DATABASE_URL as the gateway has it, else <data-dir>/gateway.sqlite); a data plane',
    'alone is compared with the routes it last applied (<data-dir>/routes.snapshot.json). Without',
    '--dry-run it sends SIGHUP to the gateway named by <data-dir>/gateway.pid and waits up to 10 s',
    'for its answer in <data-dir>/reload-status.json. The gateway re-reads the file it was started',
    'with, so --config should name that file. A rejected reload keeps the running routes.',
  ],
  options: OPTIONS,
  examples: ['gateway config:reload --dry-run', 'gateway config:reload', 'gateway config:reload --config /etc/gateway/proxy.yml --data-dir /var/lib/gateway'],
  run: async (argv, context) => {
    const { values } = parseCommandArgs('config:reload', argv, OPTIONS);
    loadDotEnv(context);
    const paths = resolveGatewayPaths(context, {
      config: nonEmpty(values.config, 'config', 'config:reload'),
      dataDir: nonEmpty(values['data-dir'], 'data-dir', 'config:reload'),
    });

    const result = await loadProxyConfig(paths.configPath);
    if (!result.ok) {
      formatConfigErrors(paths.configLabel, result.errors).forEach((line) => context.err(line));
      context.err(`${paths.configLabel}: invalid (${plural(result.errors.length, 'error')}); nothing was reloaded`);
      return EXIT.failure;
    }

    const preview = await previewReload(paths, context, result.config.routes);
    if (!preview.ok) {
      // The store refuses the file (an API route's id or path): the gateway would reject it too.
      formatConfigErrors(paths.configLabel, preview.errors).forEach((line) => context.err(line));
      context.err(`${paths.configLabel}: the control plane would refuse it (${plural(preview.errors.length, 'error')}); nothing was reloaded`);
      return EXIT.failure;
    }
    context.out(preview.header);
    formatRouteDiff(preview.diff).forEach((line) => context.out(line));

    if (values['dry-run'] === true) {
      context.out('Dry run: nothing was signalled.');
      return EXIT.ok;
    }
    return signalAndAwait(paths, context);
  },
};

async function signalAndAwait(paths: GatewayPaths, context: CommandContext): Promise<number> {
  const pidFile = dataFile(paths.dataDir, 'pid');
  const pidLabel = displayPath(context.cwd, pidFile);
  const pid = await readPidFile(pidFile);
  if (pid === undefined) {
    context.err(`gateway is not running (no pid file at ${pidLabel})`);
    return EXIT.failure;
  }
  if (!isProcessAlive(pid)) {
    context.err(`gateway is not running (pid file at ${pidLabel} names process ${pid}, which does not exist)`);
    return EXIT.failure;
  }
  if (!looksLikeGateway(pid)) {
    context.err(`gateway is not running (pid file at ${pidLabel} names process ${pid}, which is not a gateway; not signalling it)`);
    return EXIT.failure;
  }

  const previous = await readReloadStatus(paths.dataDir);
  const sentAt = Date.now();
  try {
    process.kill(pid, 'SIGHUP');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    context.err(code === 'ESRCH' ? `gateway is not running (process ${pid} from ${pidLabel} exited)` : `cannot signal the gateway (pid ${pid}): ${code ?? String(error)}`);
    return EXIT.failure;
  }
  context.out(`Sent SIGHUP to the gateway (pid ${pid}); waiting for its reload result...`);

  const outcome = await awaitOutcome(paths.dataDir, pid, sentAt, previous?.at);
  if (outcome === 'exited') {
    context.err(`the gateway (pid ${pid}) exited before reporting a reload result`);
    return EXIT.failure;
  }
  if (outcome === undefined) {
    context.err(`no reload result from the gateway (pid ${pid}) within ${ANSWER_TIMEOUT_MS / 1000} s (${displayPath(context.cwd, dataFile(paths.dataDir, 'reloadStatus'))} not updated)`);
    return EXIT.failure;
  }
  if (outcome.ok) {
    const { added, changed, removed } = outcome.diff;
    context.out(`Reloaded at ${outcome.at}: the gateway serves ${plural(outcome.routes, 'route')} (${added.length} added, ${changed.length} changed, ${removed.length} removed).`);
    return EXIT.ok;
  }
  formatConfigErrors(paths.configLabel, outcome.errors).forEach((line) => context.err(line));
  context.err(`the gateway rejected the configuration (${plural(outcome.errors.length, 'error')}) and kept its running routes`);
  return EXIT.failure;
}

/** Polls reload-status.json for an outcome written after `sentAt` (and not the one already there). */
async function awaitOutcome(dataDir: string, pid: number, sentAt: number, previousAt: string | undefined): Promise<ReloadOutcome | 'exited' | undefined> {
  const deadline = sentAt + ANSWER_TIMEOUT_MS;
  for (;;) {
    const status = await readReloadStatus(dataDir);
    if (status !== undefined && status.at !== previousAt && Date.parse(status.at) >= sentAt) return status;
    if (!isProcessAlive(pid)) return 'exited';
    if (Date.now() >= deadline) return undefined;
    await sleep(POLL_INTERVAL_MS);
  }
}
