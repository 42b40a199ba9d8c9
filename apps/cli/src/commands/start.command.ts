import { rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { OUTBOUND_ALLOW_VARIABLE, parseCidrList, type Cidr } from '@gateway/outbound-target';
import { writeFileAtomic } from '../atomic-write';
import { nonEmpty, parseCommandArgs, parsePort, UsageError } from '../cli-args';
import { cliVersion } from '../cli-version';
import { CommandFailure, EXIT, type Command, type CommandContext } from '../command';
import { formatConfigErrors } from '../config-error-report';
import { reachableUrl, URL_FILE } from '../gateway-client';
import { recordFile, writeGatewayRecord } from '../gateway-record';
import { InvalidStartConfigError, ROLES, startRole, type GatewayRole, type RunningGateway } from '../gateway-roles';
import { dataFile } from '../data-dir-state';
import { displayPath, loadDotEnv, resolveGatewayPaths, type GatewayPaths } from '../gateway-paths';
import { GatewaySignals } from '../gateway-signals';
import { JsonLineLogger } from '../json-line-logger';
import { claimPidFile, livePidFileHolder, releasePidFile } from '../pid-file';
import { plural } from '../plural';
import { startIdleYoungGenerationTrim } from '../young-generation-trim';

const OPTIONS = {
  config: { type: 'string', valueName: 'FILE', description: 'Configuration file (default: $GATEWAY_CONFIG, else ./proxy.yml)' },
  port: { type: 'string', valueName: 'N', description: 'Port to listen on, 0..65535, 0 for any free port (default: proxy.port)' },
  host: { type: 'string', valueName: 'HOST', description: 'Address to listen on (default: proxy.host)' },
  'data-dir': { type: 'string', valueName: 'DIR', description: 'State directory, created with mode 0700 (default: $GATEWAY_DATA_DIR, else ./.gateway)' },
  role: { type: 'string', valueName: 'ROLE', description: 'all (default: both planes on one port), control-plane, or data-plane' },
} as const;

/**
 * The drain on SIGTERM (docs/deployment.md, "Graceful drain"): not ready and still serving for the
 * delay, so endpoints controllers and load balancers stop routing here; then in-flight requests
 * get up to the timeout. The deploy/ manifests' terminationGracePeriodSeconds assume these.
 */
const DEFAULT_DRAIN_DELAY_SECONDS = 5;
const DEFAULT_DRAIN_TIMEOUT_SECONDS = 30;
const MAX_DRAIN_SECONDS = 3600;

/** If the event loop is still held after a clean stop (a stray timer), exit anyway after this. */
const EXIT_GRACE_MS = 2000;

export const startCommand: Command = {
  name: 'start',
  usage: 'gateway start [--config FILE] [--port N] [--host HOST] [--data-dir DIR]',
  description: [
    'Loads .env from the current directory (variables already set win), validates the',
    'configuration (every error is printed and the exit code is 1 when it is invalid), listens,',
    'and writes its pid to <data-dir>/gateway.pid. It refuses to start while that file names',
    'another live process. Logs are JSON lines on stdout; LOG_LEVEL sets the level.',
    '',
    'Signals: SIGHUP reloads the configuration file (an invalid file keeps the running routes);',
    'SIGTERM or SIGINT drains: /health/serving and /health/ready answer 503 at once, traffic is',
    'still served for DRAIN_DELAY_SECONDS (default 5), then it stops accepting, lets in-flight',
    'requests finish for up to DRAIN_TIMEOUT_SECONDS (default 30), removes the pid file and exits',
    '0; a second SIGTERM or SIGINT exits at once (exit 1).',
  ],
  options: OPTIONS,
  examples: [
    'gateway start',
    'gateway start --config /etc/gateway/proxy.yml --data-dir /var/lib/gateway',
    'gateway start --port 8080 --host 0.0.0.0',
    'kill -HUP "$(cat .gateway/gateway.pid)"    # reload proxy.yml',
  ],
  run: async (argv, context) => {
    // Before anything else, and before the data plane is loaded: Node's default for SIGHUP is to exit.
    const log = new JsonLineLogger(context.env['LOG_LEVEL'], context.out);
    const signals = new GatewaySignals(log);
    signals.install();

    const { values } = parseCommandArgs('start', argv, OPTIONS);
    const port = parsePort(values.port, 'start');
    const host = nonEmpty(values.host, 'host', 'start');
    const role = parseRole(values.role);
    loadDotEnv(context);
    log.setLevel(context.env['LOG_LEVEL']);
    const paths = resolveGatewayPaths(context, {
      config: nonEmpty(values.config, 'config', 'start'),
      dataDir: nonEmpty(values['data-dir'], 'data-dir', 'start'),
    });

    try {
      await mkdir(paths.dataDir, { recursive: true, mode: 0o700 });
    } catch (error) {
      context.err(`gateway start: cannot create the data directory ${paths.dataDir}: ${describe(error)}`);
      return EXIT.failure;
    }
    const pidFile = dataFile(paths.dataDir, 'pid');
    // Checked before listening too, so a second gateway does not even bind its port.
    const holder = await livePidFileHolder(pidFile, process.pid);
    if (holder !== undefined) {
      context.err(alreadyRunning(context, pidFile, holder));
      return EXIT.failure;
    }

    const plane = await startPlanes(role, paths, context, host, port, log);
    if (plane === undefined) return EXIT.failure;
    if (plane.logOutputs !== undefined) log.recordTo(plane.logOutputs);
    // The data plane logs its own 'gateway listening'; a control plane alone says where it is here.
    if (role === 'control-plane') log.info({ role, host: plane.host, port: plane.port }, 'control plane listening');
    if (signals.stopping) return signals.serve(plane, () => undefined);

    let claim;
    try {
      claim = await claimPidFile(pidFile, process.pid);
    } catch (error) {
      await plane.close();
      context.err(`gateway start: cannot write ${pidFile}: ${describe(error)}`);
      return EXIT.failure;
    }
    if (!claim.claimed) {
      await plane.close();
      context.err(alreadyRunning(context, pidFile, claim.holder));
      return EXIT.failure;
    }
    const urlFile = path.join(paths.dataDir, URL_FILE);
    const cleanup = (): void => {
      releasePidFile(pidFile, process.pid);
      rmSync(urlFile, { force: true });
    };
    signals.cleanupOnExit(cleanup);
    log.info({ pidFile, dataDir: paths.dataDir, config: paths.configPath }, 'pid file written');
    // Best effort: `status`, `routes:list` and `logs` find the gateway through it, or take --url.
    await writeFileAtomic(urlFile, `${reachableUrl(plane.host, plane.port)}\n`).catch((error: unknown) =>
      log.warn({ file: urlFile, err: describe(error) }, 'could not record the listening address'),
    );
    // Where its routes come from: what `config:reload` diffs proxy.yml against.
    await writeGatewayRecord(paths.dataDir, { role, pid: process.pid, startedAt: new Date().toISOString(), routes: plane.routes }).catch((error: unknown) =>
      log.warn({ file: recordFile(paths.dataDir), err: describe(error) }, 'could not record the role'),
    );

    // Hands the young generation back once the gateway is idle (docs/data-plane.md, "Heap").
    const stopTrim = startIdleYoungGenerationTrim();
    const code = await signals.serve(plane, cleanup);
    stopTrim();
    log.info({ code }, 'gateway exited');
    setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
    return code;
  },
};

/** Starts the planes of the role; prints why and resolves undefined when it cannot. */
async function startPlanes(
  role: GatewayRole,
  paths: GatewayPaths,
  context: CommandContext,
  host: string | undefined,
  port: number | undefined,
  log: JsonLineLogger,
): Promise<RunningGateway | undefined> {
  try {
    return await startRole(role, {
      configPath: paths.configPath,
      dataDir: paths.dataDir,
      host,
      port,
      logLevel: context.env['LOG_LEVEL'],
      log,
      version: cliVersion(),
      env: context.env,
      redisCommandTimeoutMs: positiveInteger(context.env, 'RATE_LIMIT_REDIS_TIMEOUT_MS'),
      outboundAllowCidrs: cidrList(context.env, OUTBOUND_ALLOW_VARIABLE),
      drain: {
        delayMs: seconds(context.env, 'DRAIN_DELAY_SECONDS', DEFAULT_DRAIN_DELAY_SECONDS) * 1000,
        timeoutMs: seconds(context.env, 'DRAIN_TIMEOUT_SECONDS', DEFAULT_DRAIN_TIMEOUT_SECONDS) * 1000,
      },
      telemetry: onOff(context.env, 'GATEWAY_TELEMETRY'),
    });
  } catch (error) {
    if (error instanceof InvalidStartConfigError) {
      formatConfigErrors(paths.configLabel, error.errors).forEach((line) => context.err(line));
      context.err(`gateway start: ${paths.configLabel} is invalid (${plural(error.errors.length, 'error')}); not started`);
    } else if (error instanceof CommandFailure) {
      context.err(error.message);
    } else {
      context.err(`gateway start: could not start: ${describe(error)}`);
    }
    return undefined;
  }
}

function alreadyRunning(context: CommandContext, pidFile: string, holder: number): string {
  const label = displayPath(context.cwd, pidFile);
  return `gateway start: a gateway is already running with this data directory (pid ${holder}, from ${label}); stop it first, use another --data-dir, or delete ${label} if process ${holder} is not a gateway`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An optional positive whole number from the environment; anything else is refused by name. */
function positiveInteger(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = /^\d{1,7}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isInteger(value) || value < 1) throw new CommandFailure(`${name} must be a whole number of milliseconds from 1 to 9999999, got '${raw}'`);
  return value;
}

/** A whole number of seconds from the environment (0 allowed), else `fallback`; anything else is refused by name. */
function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = /^\d{1,4}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!(value <= MAX_DRAIN_SECONDS)) throw new CommandFailure(`gateway start: ${name} must be a whole number of seconds from 0 to ${MAX_DRAIN_SECONDS}, got '${raw}'`);
  return value;
}

/** OUTBOUND_ALLOW_CIDRS for the data plane (the control plane parses its own copy of the variable). */
function cidrList(env: NodeJS.ProcessEnv, name: string): Cidr[] {
  const parsed = parseCidrList(env[name]);
  if (!parsed.ok) throw new CommandFailure(`gateway start: ${name}: ${parsed.message}`);
  return parsed.cidrs;
}

function onOff(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = raw.trim().toLowerCase();
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new CommandFailure(`${name} must be on or off, got '${raw}'`);
}

function parseRole(raw: string | undefined): GatewayRole {
  if (raw === undefined) return 'all';
  const role = ROLES.find((candidate) => candidate === raw);
  if (role === undefined) throw new UsageError(`invalid value for --role: '${raw}' (expected one of ${ROLES.join(', ')})`, 'start');
  return role;
}
