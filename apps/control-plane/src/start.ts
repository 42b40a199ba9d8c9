import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { BusDropCounter, InProcessBus, SignedBus, type MessageBus } from '@gateway/events';
import { RedisBus } from '@gateway/events/redis-bus';
import { LogRingBuffer } from '@gateway/logging';
import { createGatewayPino } from '@gateway/logging/gateway-pino';
import type { FieldError } from '@gateway/route-model';
import { adminUiRouter, builtAdminUiDirectory } from './admin-ui/admin-ui.middleware';
import { AppModule } from './app.module';
import { DomainExceptionFilter } from './common/domain-exception.filter';
import { responseHeaders } from './common/response-headers.middleware';
import { createValidationPipe } from './common/validation.pipe';
import { parseControlPlaneConfig, type ControlPlaneConfig, type LogLevel } from './config/control-plane-config';
import { recordSecretFingerprints } from './config/secret-fingerprints';
import { readOrCreateSecret, readStoredSecret } from './config/secret-file';
import { ProxyFileReconciler } from './config-file/proxy-file-reconciler.service';
import { RouteSnapshotBuilder } from './cluster/route-snapshot.builder';
import type { ControlPlaneOptions, RunningControlPlane } from './control-plane-options';
import { corsOptions, endRefusedPreflight } from './cors/cors-options';
import { storeLocation } from './database/store-location';
import { migrate } from './migrate';
import { DrainState } from './health/drain-state';
import { ReadinessService } from './health/readiness.service';
import { ConsoleLevelGate } from './logs/console-level-gate';
import { PinoNestLogger } from './logs/pino-nest-logger';
import { requestLog } from './logs/request-log.middleware';
import { setupOpenApi } from './openapi/openapi';
import { LiveSettings } from './settings/live-settings.service';

export type { ControlPlaneOptions, RunningControlPlane, ReconcileOutcome, ControlPlaneReadiness } from './control-plane-options';
export { ConfigError } from './config/config-error';

/** Management request bodies are small; anything larger is refused with 413 before parsing. */
const MAX_BODY = '1mb';

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** The logger's own level: the console's when more verbose, else info (the ring buffer keeps info and up). */
function producedLevel(level: LogLevel): 'info' | 'debug' | 'trace' {
  return level === 'debug' || level === 'trace' ? level : 'info';
}

/** Thrown by start() when proxy.yml is invalid (nothing was changed); carries every error. */
export class InvalidProxyFileError extends Error {
  constructor(readonly errors: Array<FieldError & { line?: number }>) {
    super(`invalid configuration file: ${errors.length} error(s)`);
    this.name = 'InvalidProxyFileError';
  }
}

/**
 * The bus, in process or over Redis, always behind a SignedBus: every message the control plane
 * publishes is signed with the cluster key and every one it receives (presence, command replies,
 * events) is verified, so both transports take the same path (docs/control-plane.md).
 */
function createBus(config: ControlPlaneConfig): MessageBus {
  const logger = new Logger('Bus');
  const warn = (message: string, fields?: Record<string, unknown>): void => logger.warn({ ...fields, msg: message });
  const drops = new BusDropCounter({ logger: { warn } });
  const transport =
    config.redisUrl === undefined
      ? new InProcessBus()
      : new RedisBus(config.redisUrl, {
          channelPrefix: config.channelPrefix,
          ...(config.redisTlsCa === undefined ? {} : { tlsCa: config.redisTlsCa }),
          logger: { warn, info: (message, fields) => logger.log({ ...fields, msg: message }) },
          onUndecodable: (channel, reason) => drops.record(reason, channel),
        });
  if (config.bus.tokenSource === 'ephemeral' && config.redisUrl !== undefined) {
    logger.warn('CLUSTER_TOKEN is not set: bus messages are signed with a key of this process alone, so no data plane can follow it');
  }
  return new SignedBus(transport, {
    clusterToken: config.bus.clusterToken,
    ...(config.bus.previousClusterToken === undefined ? {} : { previousClusterToken: config.bus.previousClusterToken }),
    drops,
    logger: { warn },
  });
}

/**
 * Composition root of the control plane. Reads the environment once, opens the database (running
 * pending migrations), and returns the express handler; it listens only in the control-plane role.
 * It installs no process signal handlers: the caller (the CLI) owns the process.
 */
export async function start(options: ControlPlaneOptions): Promise<RunningControlPlane> {
  const config = parseControlPlaneConfig({
    dataDir: options.dataDir,
    configPath: options.configPath,
    version: options.version ?? packageVersion(),
    standalone: options.listen !== undefined,
    env: options.env ?? process.env,
    persistedSecret: (name) => readOrCreateSecret(options.dataDir, name),
    storedSecret: (name) => readStoredSecret(options.dataDir, name),
  });
  // One process owns its data dir; a control-plane role's secrets are shared by its instances.
  const switchedSecrets = config.standalone ? [] : recordSecretFingerprints(config.dataDir, { JWT_SECRET: config.auth.jwtSecret, API_KEY_SECRET: config.apiKeys.secret, SETTINGS_ENCRYPTION_KEY: config.settingsEncryption.key });
  // Before Nest opens its pool: the schema is current (and on PostgreSQL migrated under a lock).
  await migrate({ dataDir: options.dataDir, env: options.env ?? process.env });
  const bus = createBus(config);
  // Secrets no line may hold, whatever a message says (stdout and GET /api/logs alike).
  const logs = new LogRingBuffer([config.auth.jwtSecret, config.bus.clusterToken, config.bus.previousClusterToken, config.initialAdmin?.password, config.apiKeys.secret, config.settingsEncryption.key]);
  // Built at the most verbose level so settings can change the level while running: the console
  // gate filters stdout, and setLevel() keeps the logger at the level the gate or the ring buffer
  // (info at least, GET /api/logs) needs.
  const consoleGate = new ConsoleLevelGate(config.logLevel);
  const logger = new PinoNestLogger(createGatewayPino({ plane: 'control', level: 'trace', destination: consoleGate, recorder: logs, secrets: logs.secrets }));
  logger.setLevel(producedLevel(config.logLevel));
  let app: NestExpressApplication;
  try {
    app = await NestFactory.create<NestExpressApplication>(AppModule.register(config, bus, logs), {
      bodyParser: false,
      abortOnError: false,
      logger,
    });
  } catch (error) {
    await bus.close();
    throw error;
  }
  for (const warning of switchedSecrets) new Logger('Secrets').warn(warning);
  if (config.apiKeys.secret === undefined) {
    new Logger('ApiKeys').warn('API_KEY_SECRET is not set: API keys cannot be created (POST /api/api-keys answers 503) until it is set here and on every data plane');
  }
  app.disable('x-powered-by');
  app.use(responseHeaders);
  app.use(requestLog);
  // The admin UI (docs/admin-ui.md): static files and deep links, ahead of Nest's routes.
  app.use('/admin', adminUiRouter(builtAdminUiDirectory()));
  // Before anything else can answer: a preflight ends here, a refused origin gets no ACAO header.
  const settings = app.get(LiveSettings);
  app.enableCors(corsOptions((origin) => config.allowedOrigins.includes(origin) || settings.general().allowedOrigins.includes(origin)));
  app.use(endRefusedPreflight);
  app.useBodyParser('json', { limit: MAX_BODY });
  // The SAML callback is an HTML form post from the identity provider (HTTP-POST binding).
  app.useBodyParser('urlencoded', { limit: MAX_BODY, extended: false });
  app.useGlobalFilters(new DomainExceptionFilter());
  app.useGlobalPipes(createValidationPipe());
  // Before init: the document's routes must precede the guarded `/api/*` catch-all.
  setupOpenApi(app, config.version);

  let host: string | undefined;
  let port: number | undefined;
  let reconciler: ProxyFileReconciler;
  try {
    await app.init();
    // Settings apply without a restart (docs/settings.md): the log level now; CORS and the token
    // lifetime read LiveSettings on every use.
    settings.onChange((live) => {
      const level = live.general().logLevel ?? config.logLevel;
      consoleGate.setLevel(level);
      logger.setLevel(producedLevel(level));
    });
    // proxy.yml is reconciled before the control plane serves anything: a data plane's first
    // snapshot already holds the file's routes. An invalid file fails the start, as in file mode.
    reconciler = app.get(ProxyFileReconciler);
    const initial = await reconciler.reconcile();
    if (!initial.ok) throw new InvalidProxyFileError(initial.errors);
    if (options.listen !== undefined) {
      await app.listen(options.listen.port, options.listen.host ?? '0.0.0.0');
      const address = app.getHttpServer().address() as AddressInfo;
      host = address.address;
      port = address.port;
    }
  } catch (error) {
    await app.close().catch(() => undefined);
    await bus.close();
    throw error;
  }

  const readiness = app.get(ReadinessService);
  const drainState = app.get(DrainState);
  const snapshots = app.get(RouteSnapshotBuilder);
  const handler = app.getHttpAdapter().getInstance() as RunningControlPlane['handler'];
  let closing: Promise<void> | undefined;
  return {
    handler,
    bus,
    host,
    port,
    snapshot: () => snapshots.build(),
    apiKeySecret: config.apiKeys.secret,
    logRecorder: logs,
    logSecrets: logs.secrets,
    reconcileFile: (opts) => reconciler.reconcile({ dryRun: opts?.dryRun ?? false }),
    store: storeLocation(config.database),
    reservedPathPrefixes: config.reservedPathPrefixes,
    readiness: () => readiness.check(),
    httpServer: options.listen === undefined ? undefined : app.getHttpServer(),
    beginDrain: () => drainState.begin(),
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await bus.close();
      })()),
  };
}
