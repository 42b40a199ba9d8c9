import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FieldError } from '@gateway/route-model';
import { joseJwtVerifierFactory } from './adapters/jose-jwt-verifier.adapter';
import { createPinoLogger } from './adapters/pino-logger.adapter';
import { PromMetrics } from './adapters/prom-metrics.adapter';
import { DATA_FILES, type DataPlaneOptions, type RunningDataPlane } from './data-plane-options';
import { ConfigReloader } from './engine/config-reloader';
import { DeadlineWheel } from './engine/deadline-wheel';
import type { Exchange } from './engine/exchange';
import { forward } from './engine/forward';
import { createGatewayServer } from './engine/gateway-server';
import { compilePipeline, sortFactories } from './engine/pipeline';
import type { EngineServices } from './engine/ports';
import { RequestDispatcher } from './engine/request-dispatcher';
import { UpstreamAgentPool } from './engine/upstream-target';
import { UpstreamHealthRegistry } from './engine/upstream-health-registry';
import { OpsEndpoints } from './ops/ops-endpoints';
import { createEdgeServices } from './policies/edge-services';
import { POLICY_FACTORIES } from './policies/policy-registry';
import { loadProxyConfig } from './proxy-config-source';

/** Thrown by start() when the configuration file is invalid; carries every error. */
export class InvalidConfigError extends Error {
  constructor(readonly errors: Array<FieldError & { line?: number }>) {
    super(`invalid configuration: ${errors.length} error(s)`);
    this.name = 'InvalidConfigError';
  }
}

/** How long close() lets in-flight requests finish before cutting them. */
const DRAIN_TIMEOUT_MS = 10_000;

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/**
 * Composition root of the data plane: wires the adapters into the engine, loads proxy.yml,
 * listens, and hands back reload/close. It installs no process signal handlers: the caller (the
 * CLI) owns the process.
 */
export async function start(options: DataPlaneOptions): Promise<RunningDataPlane> {
  const logger = createPinoLogger(options.logLevel ?? process.env['LOG_LEVEL'] ?? 'info');
  const metrics = new PromMetrics();
  const health = new UpstreamHealthRegistry();
  const deadlines = new DeadlineWheel<Exchange>();
  const edge = createEdgeServices({
    jwt: joseJwtVerifierFactory,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.apiKeys === undefined ? {} : { apiKeys: options.apiKeys }),
    ...(options.cache === undefined ? {} : { cache: options.cache }),
  });
  const services: EngineServices = { logger, metrics, health, deadlines, version: options.version ?? packageVersion(), startedAt: Date.now(), edge };

  const initial = await loadProxyConfig(options.configPath);
  if (!initial.ok) throw new InvalidConfigError(initial.errors);
  const overrides = { host: options.host, port: options.port };
  const settings = { ...initial.config.proxy, host: options.host ?? initial.config.proxy.host, port: options.port ?? initial.config.proxy.port };

  const agents = new UpstreamAgentPool();
  const gatewayPipeline = compilePipeline(sortFactories(POLICY_FACTORIES, 'gateway'), undefined, { settings, services }, forward);
  const tableRef: { dispatcher?: RequestDispatcher } = {};
  const ops = new OpsEndpoints(services, () => tableRef.dispatcher?.getTable());
  const dispatcher = new RequestDispatcher(gatewayPipeline, ops, logger);
  tableRef.dispatcher = dispatcher;

  const reloader = new ConfigReloader({
    load: () => loadProxyConfig(options.configPath),
    dispatcher,
    factories: POLICY_FACTORIES,
    services,
    health,
    agents,
    snapshotPath: path.join(options.dataDir, DATA_FILES.snapshot),
    statusPath: path.join(options.dataDir, DATA_FILES.reloadStatus),
    overrides,
  });
  await reloader.apply(initial.config);

  const server = createGatewayServer(settings, dispatcher.handle, dispatcher.rejectExpectation);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  logger.info({ host: address.address, port: address.port, routes: dispatcher.getTable()?.routes.length ?? 0 }, 'gateway listening');

  let closing: Promise<void> | undefined;
  return {
    host: address.address,
    port: address.port,
    reload: () => reloader.reload(),
    cache: { purge: (routeId: string) => edge.responseCache.purge(routeId) },
    apiKeys: edge.apiKeys,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          agents.destroy();
          edge.close();
          deadlines.close();
          logger.info({}, 'gateway stopped');
          resolve();
        });
        server.closeIdleConnections();
      })),
  };
}
