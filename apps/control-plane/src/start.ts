import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { InProcessBus, type MessageBus } from '@gateway/events';
import { RedisBus } from '@gateway/events/redis-bus';
import type { FieldError } from '@gateway/route-model';
import { AppModule } from './app.module';
import { DomainExceptionFilter } from './common/domain-exception.filter';
import { responseHeaders } from './common/response-headers.middleware';
import { createValidationPipe } from './common/validation.pipe';
import { parseControlPlaneConfig, type ControlPlaneConfig } from './config/control-plane-config';
import { recordSecretFingerprints } from './config/secret-fingerprints';
import { readOrCreateSecret, readStoredSecret } from './config/secret-file';
import { ProxyFileReconciler } from './config-file/proxy-file-reconciler.service';
import { RouteSnapshotBuilder } from './cluster/route-snapshot.builder';
import type { ControlPlaneOptions, RunningControlPlane } from './control-plane-options';
import { corsOptions, endRefusedPreflight } from './cors/cors-options';
import { storeLocation } from './database/store-location';
import { migrate } from './migrate';
import { ReadinessService } from './health/readiness.service';
import { LogRingBuffer } from './logs/log-ring-buffer';
import { RecordingLogger } from './logs/recording-logger';
import { requestLog } from './logs/request-log.middleware';
import { setupOpenApi } from './openapi/openapi';

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

/** Thrown by start() when proxy.yml is invalid (nothing was changed); carries every error. */
export class InvalidProxyFileError extends Error {
  constructor(readonly errors: Array<FieldError & { line?: number }>) {
    super(`invalid configuration file: ${errors.length} error(s)`);
    this.name = 'InvalidProxyFileError';
  }
}

function createBus(config: ControlPlaneConfig): MessageBus {
  if (config.redisUrl === undefined) return new InProcessBus();
  const logger = new Logger('RedisBus');
  return new RedisBus(config.redisUrl, {
    channelPrefix: config.channelPrefix,
    logger: { warn: (message, fields) => logger.warn(`${message} ${JSON.stringify(fields ?? {})}`), info: (message) => logger.log(message) },
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
  const switchedSecrets = config.standalone ? [] : recordSecretFingerprints(config.dataDir, { JWT_SECRET: config.auth.jwtSecret, API_KEY_SECRET: config.apiKeys.secret });
  // Before Nest opens its pool: the schema is current (and on PostgreSQL migrated under a lock).
  await migrate({ dataDir: options.dataDir, env: options.env ?? process.env });
  const bus = createBus(config);
  // Secrets the log buffer must never hold, whatever a message says (GET /api/logs).
  const logs = new LogRingBuffer([config.auth.jwtSecret, config.clusterToken, config.initialAdmin?.password, config.apiKeys.secret]);
  let app: NestExpressApplication;
  try {
    app = await NestFactory.create<NestExpressApplication>(AppModule.register(config, bus, logs), {
      bodyParser: false,
      abortOnError: false,
      logger: new RecordingLogger(config.logLevel, logs),
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
  // Before anything else can answer: a preflight ends here, a refused origin gets no ACAO header.
  app.enableCors(corsOptions(config.allowedOrigins));
  app.use(endRefusedPreflight);
  app.useBodyParser('json', { limit: MAX_BODY });
  app.useGlobalFilters(new DomainExceptionFilter());
  app.useGlobalPipes(createValidationPipe());
  // Before init: the document's routes must precede the guarded `/api/*` catch-all.
  setupOpenApi(app, config.version);

  let host: string | undefined;
  let port: number | undefined;
  let reconciler: ProxyFileReconciler;
  try {
    await app.init();
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
    reconcileFile: (opts) => reconciler.reconcile({ dryRun: opts?.dryRun ?? false }),
    store: storeLocation(config.database),
    reservedPathPrefixes: config.reservedPathPrefixes,
    readiness: () => readiness.check(),
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await bus.close();
      })()),
  };
}
