import type { ReloadOutcome } from '@gateway/data-plane/data-plane-options';
import type { Cidr } from '@gateway/outbound-target';
import { MANAGEMENT_PATH_PREFIXES, type FieldError } from '@gateway/route-model';
import { CommandFailure } from './command';
import { nonBlank } from './gateway-client';
import type { RouteOwner } from './gateway-record';
import type { LogOutputs } from './json-line-logger';
import { recordReloadOutcome, reloadThroughStore } from './store-reload';

/** What `gateway start` runs: one role, or both planes in one process (the default). */
export const ROLES = ['all', 'control-plane', 'data-plane'] as const;
export type GatewayRole = (typeof ROLES)[number];

/** The running process, whatever its role: what the signal handlers need. */
export interface RunningGateway {
  readonly host: string;
  readonly port: number;
  /** Where its routes come from (recorded in the data directory for `config:reload`). */
  readonly routes: RouteOwner;
  /** With a control plane in this process: where the CLI's own lines are recorded too (GET /api/logs). */
  readonly logOutputs?: LogOutputs;
  /** SIGHUP: re-read proxy.yml (through the control plane when there is one). */
  reload(): Promise<ReloadOutcome>;
  close(): Promise<void>;
}

export interface RoleSettings {
  configPath: string;
  dataDir: string;
  host?: string;
  port?: number;
  logLevel?: string;
  /** The CLI's JSON-line logger, for components the CLI builds itself (the data plane's bus). */
  log?: { info(fields: Record<string, unknown>, msg: string): void; warn(fields: Record<string, unknown>, msg: string): void };
  version: string;
  env: NodeJS.ProcessEnv;
  redisCommandTimeoutMs?: number;
  /** OUTBOUND_ALLOW_CIDRS, parsed: exceptions to the outbound-target rule of health checks. */
  outboundAllowCidrs?: readonly Cidr[];
  /** DRAIN_DELAY_SECONDS and DRAIN_TIMEOUT_SECONDS in ms: how a stop signal drains either plane. */
  drain?: { delayMs: number; timeoutMs: number };
  /** GATEWAY_TELEMETRY: data planes that follow a control plane publish telemetry windows unless false. */
  telemetry?: boolean;
}

/** A configuration the gateway refused to start with: every error, with lines when known. */
export class InvalidStartConfigError extends Error {
  constructor(readonly errors: Array<FieldError & { line?: number }>) {
    super(`invalid configuration: ${errors.length} error(s)`);
    this.name = 'InvalidStartConfigError';
  }
}

/**
 * Starts the planes of `role`. Modules are imported here, not at the top of the CLI: the signal
 * handlers must be installed before anything heavy loads, and a data plane never loads NestJS.
 */
export async function startRole(role: GatewayRole, settings: RoleSettings): Promise<RunningGateway> {
  if (role !== 'data-plane') await refuseUnservableFile(settings.configPath);
  switch (role) {
    case 'all':
      return startBothPlanes(settings);
    case 'control-plane':
      return startControlPlaneOnly(settings);
    case 'data-plane':
      return startDataPlaneOnly(settings);
  }
}

/** One process, one port: the data plane serves traffic and hands /api, /admin, /internal to the control plane. */
async function startBothPlanes(settings: RoleSettings): Promise<RunningGateway> {
  const controlPlane = await startControlPlane(settings, undefined);
  try {
    const dataPlane = await startDataPlane(settings, {
      routeSource: { kind: 'control-plane', bus: controlPlane.bus, fetchSnapshot: () => controlPlane.snapshot() },
      // The control plane's server key (API_KEY_SECRET, or the one generated in the data dir).
      apiKeys: await apiKeyVerifier(controlPlane.apiKeySecret),
      mount: { prefixes: MANAGEMENT_PATH_PREFIXES, handler: controlPlane.handler },
      extraReadiness: async () => definedChecks({ ...(await controlPlane.readiness()) }),
      // GET /api/logs and `gateway logs` show the data plane's lines too.
      logRecorder: controlPlane.logRecorder,
      logSecrets: controlPlane.logSecrets,
    });
    return {
      host: dataPlane.host,
      port: dataPlane.port,
      routes: { kind: 'store', store: controlPlane.store, reservedPathPrefixes: controlPlane.reservedPathPrefixes },
      logOutputs: { recorder: controlPlane.logRecorder, secrets: controlPlane.logSecrets },
      reload: () => reloadThroughStore(controlPlane, settings, dataPlane),
      close: async () => {
        await dataPlane.close();
        await controlPlane.close();
      },
    };
  } catch (error) {
    await controlPlane.close();
    throw error;
  }
}

async function startControlPlaneOnly(settings: RoleSettings): Promise<RunningGateway> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { loadProxySettings } = require('@gateway/data-plane/proxy-config-source') as typeof import('@gateway/data-plane/proxy-config-source');
  const file = await loadProxySettings(settings.configPath);
  if (!file.ok) throw new InvalidStartConfigError(file.errors);
  const listen = { host: settings.host ?? file.settings.host, port: settings.port ?? file.settings.port };
  // Loaded before it listens: between listening and the drain's first look at the server there is
  // then no wait on I/O, so no connection is accepted that the drain would not know of.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { DEFAULT_DRAIN_TIMINGS, ServerDrain } = require('@gateway/data-plane/start') as typeof import('@gateway/data-plane/start');
  const controlPlane = await startControlPlane(settings, listen);
  const drain = controlPlane.httpServer === undefined ? undefined : new ServerDrain(controlPlane.httpServer);
  return {
    host: controlPlane.host ?? listen.host,
    port: controlPlane.port ?? listen.port,
    routes: { kind: 'store', store: controlPlane.store, reservedPathPrefixes: controlPlane.reservedPathPrefixes },
    logOutputs: { recorder: controlPlane.logRecorder, secrets: controlPlane.logSecrets },
    reload: () => reloadThroughStore(controlPlane, settings),
    // API calls in flight finish before background work and the database stop (Nest's own close
    // destroys the modules first and closes the server last).
    close: async () => {
      controlPlane.beginDrain();
      await drain?.drain({ ...DEFAULT_DRAIN_TIMINGS, ...settings.drain });
      await controlPlane.close();
    },
  };
}

/**
 * Without CONTROL_PLANE_URL the data plane runs from proxy.yml alone; with it, it follows that
 * control plane over Redis and keeps serving its last configuration while either is away.
 */
async function startDataPlaneOnly(settings: RoleSettings): Promise<RunningGateway> {
  const apiKeys = await apiKeyVerifier(apiKeySecretOf(settings.env));
  const controlPlaneUrl = nonBlank(settings.env['CONTROL_PLANE_URL']);
  if (controlPlaneUrl === undefined) return { ...(await startDataPlane(settings, { apiKeys })), routes: { kind: 'file' } };
  const { clusterToken, redisUrl } = followerSettings(settings.env);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { createHttpSnapshotFetcher } = require('@gateway/data-plane/cluster-source') as typeof import('@gateway/data-plane/cluster-source');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { RedisBus } = require('@gateway/events/redis-bus') as typeof import('@gateway/events/redis-bus');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { BusDropCounter, SignedBus } = require('@gateway/events') as typeof import('@gateway/events');
  const fetchSnapshot = createHttpSnapshotFetcher(controlPlaneUrl, clusterToken);
  const log = settings.log;
  // In the process's one JSON log shape (the buses have their own stderr fallback otherwise).
  const logger =
    log === undefined
      ? undefined
      : { warn: (msg: string, fields?: Record<string, unknown>) => log.warn({ component: 'bus', ...fields }, msg), info: (msg: string, fields?: Record<string, unknown>) => log.info({ component: 'bus', ...fields }, msg) };
  const drops = new BusDropCounter(logger === undefined ? {} : { logger });
  const tlsCa = await redisTlsCaOf(settings.env);
  const transport = new RedisBus(redisUrl, {
    channelPrefix: nonBlank(settings.env['REDIS_CHANNEL_PREFIX']),
    ...(tlsCa === undefined ? {} : { tlsCa }),
    onUndecodable: (channel, reason) => drops.record(reason, channel),
    ...(logger === undefined ? {} : { logger }),
  });
  // Only what the control plane signed with the cluster key reaches the data plane (docs/control-plane.md).
  const previousClusterToken = nonBlank(settings.env['CLUSTER_TOKEN_PREVIOUS']);
  const bus = new SignedBus(transport, { clusterToken, drops, ...(previousClusterToken === undefined ? {} : { previousClusterToken }), ...(logger === undefined ? {} : { logger }) });
  try {
    const dataPlane = await startDataPlane(settings, { routeSource: { kind: 'control-plane', bus, fetchSnapshot }, apiKeys });
    return {
      host: dataPlane.host,
      port: dataPlane.port,
      routes: { kind: 'control-plane', url: controlPlaneUrl },
      // A snapshot now; the data plane does not answer SIGHUP itself when it follows (store-reload.ts).
      reload: async () => recordReloadOutcome(settings.dataDir, await dataPlane.reload()),
      close: async () => {
        await dataPlane.close();
        await bus.close();
      },
    };
  } catch (error) {
    await bus.close();
    throw error;
  }
}

type DataPlaneExtras = Pick<import('@gateway/data-plane/data-plane-options').DataPlaneOptions, 'routeSource' | 'mount' | 'extraReadiness' | 'apiKeys' | 'logRecorder' | 'logSecrets'>;

/** The control plane's rule for secrets (MIN_SECRET_LENGTH), for the data plane's copy of API_KEY_SECRET. */
const MIN_API_KEY_SECRET_LENGTH = 32;

/**
 * A data plane hashes presented keys with the control plane's API_KEY_SECRET. Unset, the data
 * plane has a verifier without a server key: its apiKey routes answer 503 AUTH_NOT_CONFIGURED
 * and say why in the log, rather than 401 to every key.
 */
function apiKeySecretOf(env: NodeJS.ProcessEnv): string | undefined {
  const secret = nonBlank(env['API_KEY_SECRET']);
  if (secret !== undefined && secret.length < MIN_API_KEY_SECRET_LENGTH) {
    throw new CommandFailure(`gateway start --role data-plane: API_KEY_SECRET must be at least ${MIN_API_KEY_SECRET_LENGTH} characters (the control plane's value)`);
  }
  return secret;
}

async function apiKeyVerifier(secret: string | undefined) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { HmacApiKeyVerifier } = require('@gateway/data-plane/data-plane-options') as typeof import('@gateway/data-plane/data-plane-options');
  return new HmacApiKeyVerifier(secret);
}

async function startDataPlane(settings: RoleSettings, extras: DataPlaneExtras) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { start, InvalidConfigError } = require('@gateway/data-plane/start') as typeof import('@gateway/data-plane/start');
  const redisTlsCa = await redisTlsCaOf(settings.env);
  try {
    return await start({
      configPath: settings.configPath,
      dataDir: settings.dataDir,
      host: settings.host,
      port: settings.port,
      logLevel: settings.logLevel,
      version: settings.version,
      env: settings.env,
      redisUrl: nonBlank(settings.env['REDIS_URL']),
      redisCommandTimeoutMs: settings.redisCommandTimeoutMs,
      ...(redisTlsCa === undefined ? {} : { redisTlsCa }),
      outboundAllowCidrs: settings.outboundAllowCidrs,
      ...(settings.drain === undefined ? {} : { drain: settings.drain }),
      ...(settings.telemetry === undefined ? {} : { telemetry: settings.telemetry }),
      ...extras,
    });
  } catch (error) {
    if (error instanceof InvalidConfigError) throw new InvalidStartConfigError(error.errors);
    throw error;
  }
}

async function startControlPlane(settings: RoleSettings, listen: { host?: string; port: number } | undefined) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { start, InvalidProxyFileError, ConfigError } = require('@gateway/control-plane/start') as typeof import('@gateway/control-plane/start');
  try {
    return await start({ dataDir: settings.dataDir, configPath: settings.configPath, version: settings.version, env: settings.env, ...(listen === undefined ? {} : { listen }) });
  } catch (error) {
    if (error instanceof InvalidProxyFileError) throw new InvalidStartConfigError(error.errors);
    if (error instanceof ConfigError) throw new CommandFailure(`gateway start: ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * The control plane accepts every route the route model accepts; the data plane also refuses
 * blocks it cannot enforce. Checked with the data plane's own reader before the control plane
 * stores anything, so a file that starts (or reloads) is a file the gateway serves as written.
 * Routes under the management prefixes (one process) are the control plane's own check, applied
 * by its reconciliation at start and on every reload alike.
 */
async function refuseUnservableFile(configPath: string): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { loadProxyConfig } = require('@gateway/data-plane/proxy-config-source') as typeof import('@gateway/data-plane/proxy-config-source');
  const loaded = await loadProxyConfig(configPath);
  if (!loaded.ok) throw new InvalidStartConfigError(loaded.errors);
}

function definedChecks(checks: { [name: string]: 'UP' | 'DOWN' | undefined }): Record<string, 'UP' | 'DOWN'> {
  const out: Record<string, 'UP' | 'DOWN'> = {};
  for (const [name, state] of Object.entries(checks)) if (state !== undefined) out[name] = state;
  return out;
}

/** REDIS_TLS_CA_FILE for the data plane's Redis connections (the control plane reads its own, in its configuration). */
async function redisTlsCaOf(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const file = nonBlank(env['REDIS_TLS_CA_FILE']);
  if (file === undefined) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { readRedisTlsCa } = require('@gateway/events') as typeof import('@gateway/events');
  try {
    return readRedisTlsCa(file, nonBlank(env['REDIS_URL']));
  } catch (error) {
    throw new CommandFailure(`gateway start: ${(error as Error).message}`);
  }
}

/** What a data plane following CONTROL_PLANE_URL needs besides it; every missing variable is named at once. */
function followerSettings(env: NodeJS.ProcessEnv): { clusterToken: string; redisUrl: string } {
  const clusterToken = nonBlank(env['CLUSTER_TOKEN']);
  const redisUrl = nonBlank(env['REDIS_URL']);
  const missing = [
    ...(clusterToken === undefined ? ['CLUSTER_TOKEN is not set (it authenticates to the control plane with it)'] : []),
    ...(redisUrl === undefined ? ['REDIS_URL is not set (it receives the changes over Redis)'] : []),
  ];
  if (clusterToken === undefined || redisUrl === undefined) {
    throw new CommandFailure(`gateway start --role data-plane: CONTROL_PLANE_URL is set, but ${missing.join('; ')}`);
  }
  return { clusterToken, redisUrl };
}

