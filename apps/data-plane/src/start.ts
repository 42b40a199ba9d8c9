import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { LogRingBuffer, SecretText } from '@gateway/logging';
import { parseCaDirs } from '@gateway/config-file';
import { OutboundAddressRule } from '@gateway/outbound-target';
import type { FieldError, ProxyConfig, ProxySettings, ProxyTlsSettings } from '@gateway/route-model';
import { joseJwtVerifierFactory } from './adapters/jose-jwt-verifier.adapter';
import { createPinoLogger } from './adapters/pino-logger.adapter';
import { scheduleExpositionWarmUp, type ExpositionScratch } from './adapters/exposition-warm-up';
import { PromMetrics } from './adapters/prom-metrics.adapter';
import type { ControlPlaneFollower } from './cluster/control-plane-follower';
import { DATA_FILES, type DataPlaneOptions, type ReloadOutcome, type ResilienceControls, type RunningDataPlane } from './data-plane-options';
import { ConfigReloader, type ConfigLoad } from './engine/config-reloader';
import { DeadlineWheel } from './engine/deadline-wheel';
import type { Exchange } from './engine/exchange';
import { forward } from './engine/forward';
import { createGatewayServer } from './engine/gateway-server';
import { withHttpsRedirect } from './engine/https-redirect';
import { OpenStreams } from './engine/open-streams';
import { OpenWebSockets } from './engine/open-websockets';
import { DEFAULT_DRAIN_TIMINGS, ServerDrain } from './engine/server-drain';
import { isUnderPrefix, mountPrefixes, withMount } from './engine/mount';
import { compilePipeline, sortFactories } from './engine/pipeline';
import { PolicyState } from './engine/policy-state';
import type { EngineServices } from './engine/ports';
import { caDirectoriesRule, type UpstreamCaFileRule } from './engine/upstream-ca-file-rule';
import { wirePolicies } from './engine/policy-wiring';
import { ServiceRegistry } from './engine/service-registry';
import { RequestDispatcher } from './engine/request-dispatcher';
import { upstreamEnvironment } from './engine/route-table';
import { runInSlices } from './engine/time-slices';
import { UpstreamPools } from './engine/upstream-target';
import { UpstreamHealthRegistry } from './engine/upstream-health-registry';
import { parseDnsServers } from './engine/upstreams/host-resolver';
import { UpstreamRegistry } from './engine/upstreams/upstream-registry';
import type { CertificateSet } from './engine/tls-certificates';
import type { TlsListener } from './engine/tls-listener';
import { OpsEndpoints } from './ops/ops-endpoints';
import { RESILIENCE_EVENTS } from './policies/circuit-breaker/breaker-events';
import { BREAKERS } from './policies/circuit-breaker/breaker-registry';
import { provideEdgeServices } from './policies/edge-services';
import { HEALTH_CHECKS } from './policies/health-check/health-check-registry';
import { POLICY_FACTORIES } from './policies/policy-registry';
import { MemoryRateLimitStore } from './policies/rate-limit/memory-rate-limit.store';
import { RATE_LIMIT_STORE, type RateLimitStore } from './policies/rate-limit/rate-limit-store';
import { RATE_LIMIT_USAGE } from './policies/rate-limit/rate-limit-usage';
import type { ClusterMember } from './cluster/cluster-member';
import type { TelemetryPublisher } from './policies/telemetry/telemetry-publisher';
import { TELEMETRY_TALLIES } from './policies/telemetry/telemetry-services';
import { SPAN_EXPORT, SPANS_DROPPED, type SpanExport } from './policies/tracing/span-export';
import { loadProxyConfig, loadProxyConfigForReload, loadProxySettings, type KnownRoute } from './proxy-config-source';
import { fingerprintSteps } from './route-fingerprint';

/** Thrown by start() when the configuration file is invalid; carries every error. */
export class InvalidConfigError extends Error {
  constructor(readonly errors: Array<FieldError & { line?: number }>) {
    super(`invalid configuration: ${errors.length} error(s)`);
    this.name = 'InvalidConfigError';
  }
}

/** How long start() waits for Redis before serving with local rate-limit counters. */
const REDIS_CONNECT_WAIT_MS = 1000;

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/**
 * Composition root of the data plane: wires the adapters into the engine, loads its routes (from
 * proxy.yml, or by following a control plane), listens, and hands back reload/close. It installs
 * no process signal handlers: the caller (the CLI) owns the process.
 */
export async function start(options: DataPlaneOptions): Promise<RunningDataPlane> {
  const source = options.routeSource ?? { kind: 'file' as const };
  if (source.kind === 'control-plane' && (typeof source.fetchSnapshot !== 'function' || typeof source.bus?.subscribe !== 'function')) {
    throw new TypeError('routeSource: a control-plane source needs a bus and a fetchSnapshot function');
  }
  // A data plane that follows a control plane from another process keeps its own recent lines,
  // which the control plane asks for over the bus (a logs-query command) for GET /api/logs.
  const ownLogs = options.logRecorder === undefined && source.kind === 'control-plane' ? new LogRingBuffer() : undefined;
  // The secrets this data plane holds, replaced in every line (in one process, the control plane's too).
  const env = options.env ?? process.env;
  // Upstreams of a control plane's snapshot may name CA files only inside GATEWAY_CA_DIRS (docs/tls.md).
  const upstreamCaFiles = source.kind === 'control-plane' ? caDirectoriesFromEnv(env) : undefined;
  const logSecrets = options.logSecrets ?? new SecretText([env['CLUSTER_TOKEN'], env['CLUSTER_TOKEN_PREVIOUS'], env['API_KEY_SECRET']]);
  const recorder = options.logRecorder ?? ownLogs;
  const logger = createPinoLogger(options.logLevel ?? process.env['LOG_LEVEL'] ?? 'info', { secrets: logSecrets, ...(recorder === undefined ? {} : { recorder }) });
  const metrics = new PromMetrics();
  const busDropCounts = source.kind === 'control-plane' ? source.bus.dropCounts?.bind(source.bus) : undefined;
  if (busDropCounts !== undefined) metrics.busDropCounts(busDropCounts);
  // Read once at boot: a bad value stops the start naming the variable (docs/upstreams.md).
  const upstreams = new UpstreamRegistry({ logger, metrics, dnsServers: parseDnsServers(env['GATEWAY_DNS_SERVERS'], 'GATEWAY_DNS_SERVERS') });
  const health = new UpstreamHealthRegistry(upstreams);
  const deadlines = new DeadlineWheel<Exchange>();
  const state = new PolicyState();
  const localCounters = new MemoryRateLimitStore();
  // ioredis and OpenTelemetry's exporter are loaded only when configured: a data plane without
  // Redis or OTLP export does not pay their start-up time and memory (docs/data-plane.md).
  const redisCounters =
    options.redisUrl === undefined
      ? undefined
      : // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (docs/data-plane.md, start-up fourth pass)
        new (require('./adapters/redis-rate-limit-store.adapter.js') as typeof import('./adapters/redis-rate-limit-store.adapter.js')).RedisRateLimitStore(options.redisUrl, {
          keyPrefix: options.redisKeyPrefix,
          commandTimeoutMs: options.redisCommandTimeoutMs,
          ...(options.redisTlsCa === undefined ? {} : { tlsCa: options.redisTlsCa }),
          fallback: localCounters,
          logger,
        });
  const rateLimitStore: RateLimitStore = redisCounters ?? localCounters;
  // The services policy folders declare, provided here; the engine passes them along unread.
  const provided = new ServiceRegistry().provide(RATE_LIMIT_STORE, rateLimitStore);
  const edge = provideEdgeServices(provided, {
    jwt: joseJwtVerifierFactory,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.apiKeys === undefined ? {} : { apiKeys: options.apiKeys }),
    ...(options.cache === undefined ? {} : { cache: options.cache }),
  });
  const onBreakerOpened = options.onBreakerOpened;
  const instanceId = options.instanceId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  // Set once listening when the data plane follows a control plane (it has a bus).
  const cluster: { member?: ClusterMember; telemetry?: TelemetryPublisher } = {};
  // A proxy.yml data plane never follows a control plane: it starts without these modules (docs/data-plane.md).
  const clusterModules = source.kind === 'control-plane' ? loadClusterModules() : undefined;
  const telemetry = clusterModules !== undefined && options.telemetry !== false ? new clusterModules.TelemetryRegistry() : undefined;
  if (telemetry !== undefined) provided.provide(TELEMETRY_TALLIES, telemetry);
  provided.provide(RESILIENCE_EVENTS, {
    breakerOpened: (event) => {
      onBreakerOpened?.(event);
      cluster.member?.breakerOpened(event);
    },
  });
  const services: EngineServices = {
    logger,
    metrics,
    health,
    deadlines,
    state,
    provided,
    version: options.version ?? packageVersion(),
    startedAt: Date.now(),
    outbound: new OutboundAddressRule(options.outboundAllowCidrs),
    ...(upstreamCaFiles === undefined ? {} : { upstreamCaFiles }),
  };
  state.attach(services);
  const exports: { spans?: SpanExport } = {};
  // Health-check timers, cache sweeps, the deadline sweep, the Redis connection and the span queue must not outlive the plane.
  const releaseResources = async (): Promise<void> => {
    deadlines.close();
    upstreams.close();
    edge.close();
    await state.close();
    await rateLimitStore.close();
    await exports.spans?.close();
  };

  // File mode: the whole proxy.yml. Control-plane mode: only its proxy block (or the defaults).
  let initial: ProxyConfig | undefined;
  let fileSettings: ProxySettings;
  let certificates: CertificateSet | undefined;
  let tlsListenerClass: typeof TlsListener | undefined;
  try {
    // A policy whose declared service is not provided above is a wiring bug: found here, not per request.
    wirePolicies(POLICY_FACTORIES, provided, metrics);
    if (source.kind === 'file') {
      const loaded = await loadProxyConfig(options.configPath);
      if (!loaded.ok) throw new InvalidConfigError(loaded.errors);
      initial = loaded.config;
      fileSettings = loaded.config.proxy;
    } else {
      const loaded = await loadProxySettings(options.configPath);
      if (!loaded.ok) throw new InvalidConfigError(loaded.errors);
      fileSettings = loaded.settings;
      logger.info({ settings: loaded.from === 'file' ? path.basename(options.configPath) : 'defaults' }, 'following a control plane for routes');
    }
    const tls = fileSettings.tls;
    if (tls?.enabled === true) {
      // The HTTPS listener's modules load only when it is on (start-up, docs/data-plane.md).
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (docs/data-plane.md, start-up fourth pass)
      const { loadCertificates } = require('./engine/tls-certificates.js') as typeof import('./engine/tls-certificates.js');
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- as above
      const { TlsListener: Listener } = require('./engine/tls-listener.js') as typeof import('./engine/tls-listener.js');
      tlsListenerClass = Listener;
      const loaded = await loadCertificates(tls.certificates, tls.minVersion);
      if (!loaded.ok) throw new InvalidConfigError(loaded.errors);
      certificates = loaded.set;
    }
    const spans = await createSpanExport(fileSettings, env, services);
    if (spans !== undefined) provided.provide(SPAN_EXPORT, (exports.spans = spans));
    // Shared limits from the first request when Redis is there; never a failed start when it is not.
    await redisCounters?.ready(REDIS_CONNECT_WAIT_MS);
  } catch (error) {
    await releaseResources();
    throw error;
  }
  const overrides = { host: options.host, port: options.port };
  const settings = { ...fileSettings, host: options.host ?? fileSettings.host, port: options.port ?? fileSettings.port };

  const pools = new UpstreamPools();
  const gatewayPipeline = compilePipeline(sortFactories(POLICY_FACTORIES, 'gateway'), undefined, upstreamEnvironment({ version: '', proxy: settings, upstreams: [], routes: [] }, { settings, services }), forward);
  const tableRef: { dispatcher?: RequestDispatcher; drain?: ServerDrain } = {};
  const ops = new OpsEndpoints(services, () => tableRef.dispatcher?.getTable(), options.extraReadiness, () => tableRef.drain?.draining ?? false);
  const streams = new OpenStreams();
  const websockets = new OpenWebSockets();
  metrics.openWebSockets(() => websockets.counts());
  const dispatcher = new RequestDispatcher(gatewayPipeline, ops, logger, streams, websockets);
  tableRef.dispatcher = dispatcher;

  // Set once the HTTPS listener exists; a reload reads its certificates again.
  const tlsRef: { listener?: TlsListener } = {};
  const snapshotPath = path.join(options.dataDir, DATA_FILES.snapshot);
  const reloader = new ConfigReloader({
    // A SIGHUP reload reads, parses and validates a large proxy.yml in a worker thread: requests keep flowing.
    load: source.kind === 'file' ? () => loadWithCertificates(options.configPath, tlsRef.listener, dispatcher.getTable()?.routes ?? []) : followerOnly,
    dispatcher,
    factories: POLICY_FACTORIES,
    services,
    health,
    pools,
    upstreams,
    snapshotPath,
    // Following a control plane, the caller answers SIGHUP (see ConfigReloaderDeps.statusPath).
    ...(source.kind === 'file' ? { statusPath: path.join(options.dataDir, DATA_FILES.reloadStatus) } : {}),
    overrides,
    source: source.kind,
    applyApiKeys: (set) => edge.apiKeys.replace?.(set.keys, set.secretFingerprint),
    // The auth policy compiles a route differently when no API key can be verified.
    pipelineInputs: () => edge.apiKeys.unavailable?.(),
  });
  let follower: ControlPlaneFollower | undefined;
  if (initial !== undefined) {
    reloader.apply(initial);
  } else if (source.kind === 'control-plane' && clusterModules !== undefined) {
    follower = new clusterModules.ControlPlaneFollower({
      bus: source.bus,
      fetchSnapshot: () => source.fetchSnapshot(),
      reloader,
      settings: fileSettings,
      factories: POLICY_FACTORIES,
      logger,
      snapshotPath,
      // Holds are applied after the snapshot's routes compiled, so their breakers exist.
      applyBreakerHolds: (holds) => {
        for (const hold of holds) state.get(BREAKERS).trip(hold.routeId, hold.untilMs);
      },
    });
    await follower.start();
  }

  const handler = options.mount === undefined ? dispatcher.handle : withMount(options.mount, dispatcher.handle);
  const tlsSettings = certificates === undefined ? undefined : (settings.tls as ProxyTlsSettings);
  const tlsPort = { value: tlsSettings?.port ?? 0 };
  // One-process mode: /api and /admin are served on the HTTPS listener too, by the same handler (docs/tls.md).
  const httpHandler = tlsSettings?.redirectHttp === true ? withHttpsRedirect(() => tlsPort.value, (p) => ops.serves(p), handler) : handler;
  const server = createGatewayServer(settings, httpHandler, dispatcher.rejectExpectation);
  const mounted = options.mount === undefined ? undefined : mountPrefixes(options.mount.prefixes);
  const http1Only = mounted === undefined ? undefined : (url: string): boolean => isUnderPrefix(url, mounted);
  const tlsListener =
    certificates === undefined || tlsListenerClass === undefined ? undefined : new tlsListenerClass(settings, tlsSettings as ProxyTlsSettings, certificates, server, handler, logger, http1Only);
  const drain = new ServerDrain(server, streams, websockets, tlsListener === undefined ? [] : [tlsListener]);
  tableRef.drain = drain;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(settings.port, settings.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    if (tlsListener !== undefined) {
      tlsPort.value = (await tlsListener.listen(tlsPort.value, settings.host)).port;
      tlsRef.listener = tlsListener;
    }
  } catch (error) {
    server.close();
    await follower?.close();
    pools.destroy();
    await releaseResources();
    throw error;
  }
  const address = server.address() as AddressInfo;
  logger.info(
    {
      host: address.address,
      port: address.port,
      ...(tlsListener === undefined ? {} : { tlsPort: tlsPort.value, http2: tlsSettings?.http2, serverNames: certificates?.names }),
      routes: dispatcher.getTable()?.routes.length ?? 0,
    },
    'gateway listening',
  );
  // The /metrics render compiled before the first scrape, on scratch series and render-only code (docs/data-plane.md "/metrics cardinality").
  let warmUpScratch: ExpositionScratch | undefined;
  const cancelWarmUp = scheduleExpositionWarmUp(
    () => metrics.warmUpRound((warmUpScratch ??= metrics.expositionScratch())),
    undefined,
    (bytes) => {
      warmUpScratch = undefined;
      logger.debug({ bytes }, 'metrics render warmed up');
    },
  );
  // The routes read at start-up get the fingerprints a reload's worker gives, in slices, now that requests are served (route-fingerprint.ts).
  if (initial !== undefined) {
    void runInSlices(fingerprintSteps(dispatcher.getTable()?.routes ?? [])).catch((error: unknown) => logger.warn({ err: String(error) }, 'fingerprinting the loaded routes failed'));
  }

  let closing: Promise<void> | undefined;
  const breakers = state.get(BREAKERS);
  const checks = state.get(HEALTH_CHECKS);
  const usage = state.get(RATE_LIMIT_USAGE);
  const resilience: ResilienceControls = {
    breakers: {
      trip: (routeId, holdUntilMs) => breakers.trip(routeId, holdUntilMs),
      reset: (routeId) => breakers.reset(routeId),
      status: (routeId) => breakers.status(routeId),
      all: () => breakers.all(),
    },
    rateLimits: { usage: (routeId, top) => usage.usage(routeId, top) },
    health: {
      status: (routeId) => ({ check: checks.status(routeId) ?? null, breaker: breakers.status(routeId) ?? null }),
      all: () => checks.all(),
    },
  };
  const purgeCache = { purge: (routeId: string) => edge.responseCache.purge(routeId) };
  if (source.kind === 'control-plane' && clusterModules !== undefined) {
    // Commands, presence and breaker events exist only with a bus: a proxy.yml data plane has none.
    cluster.member = new clusterModules.ClusterMember({
      bus: source.bus,
      instanceId,
      operations: { resilience, cache: purgeCache, ...(ownLogs === undefined ? {} : { logs: ownLogs }) },
      logger,
      startedAt: new Date(services.startedAt).toISOString(),
      presence: () => ({ configVersion: follower?.currentVersion ?? null, host: address.address, port: address.port }),
    });
    cluster.member.start();
    if (telemetry !== undefined) {
      cluster.telemetry = new clusterModules.TelemetryPublisher({
        bus: source.bus,
        registry: telemetry,
        // The drain's own count of open connections (kept per connection, not per request).
        gauges: new clusterModules.ProcessGaugeSampler(() => drain.openConnections),
        logger,
        sources: {
          instanceId,
          version: services.version,
          address: () => `${address.address}:${address.port}`,
          configRevision: () => follower?.currentVersion ?? 0,
          takeTopKeys: (routeId) => usage.takeWindowKeys(routeId),
          routeBreaker: (routeId) => breakers.status(routeId)?.state,
          routeHealth: (routeId) => checks.status(routeId)?.status,
          breakers: () => health.breakers(),
          // A several-target upstream's checks are named per target; telemetry reports the upstream.
          healthChecks: () => checks.byUpstream(),
        },
      });
      cluster.telemetry.start();
    }
  }
  return {
    host: address.address,
    port: address.port,
    instanceId,
    ...(tlsListener === undefined ? {} : { tlsPort: tlsPort.value }),
    reload: async () => {
      if (follower === undefined) return reloader.reload();
      // Following a control plane, the certificates come from the proxy block of proxy.yml.
      const certificates = await reloadFollowerCertificates(options.configPath, tlsRef.listener);
      return certificates ?? follower.resync();
    },
    resilience,
    cache: purgeCache,
    apiKeys: edge.apiKeys,
    close: () =>
      (closing ??= (async () => {
        const timings = { ...DEFAULT_DRAIN_TIMINGS, ...options.drain };
        logger.info({ drainDelayMs: timings.delayMs, drainTimeoutMs: timings.timeoutMs }, 'draining: not ready; still serving for the drain delay');
        // Still following the control plane meanwhile: a route change during the delay applies.
        const outcome = await drain.drain(timings);
        if (outcome.connectionsCut > 0) logger.warn({ connections: outcome.connectionsCut, drainTimeoutMs: timings.timeoutMs }, 'drain timeout reached; in-flight requests cut');
        logger.info({ streamsEnded: outcome.streamsEnded, webSocketsClosed: outcome.webSocketsClosed }, 'drained');
        cancelWarmUp();
        cluster.member?.close();
        cluster.telemetry?.close();
        await follower?.close();
        pools.destroy();
        await releaseResources();
        await reloader.flush();
        logger.info({}, 'gateway stopped');
      })()),
  };
}

/**
 * proxy.yml with its certificates read again (routes of `known`, the table being served, reused when unchanged): a file whose certificates do not load is rejected
 * like any invalid file (routes and certificates stay as they run), and reported by field.
 */
async function loadWithCertificates(configPath: string, listener: TlsListener | undefined, known: readonly KnownRoute[]): Promise<ConfigLoad> {
  const loaded = await loadProxyConfigForReload(configPath, known);
  const tls = loaded.ok ? loaded.config.proxy.tls : undefined;
  // Turning TLS on or off, or its port, needs a restart; only the certificates are reloaded.
  if (!loaded.ok || listener === undefined || tls === undefined || !tls.enabled) return loaded;
  const certificates = await listener.reload(tls);
  return certificates.ok ? loaded : { ok: false, errors: certificates.errors };
}

/** The certificates of a data plane that follows a control plane; undefined when they loaded (or there is no HTTPS listener). */
async function reloadFollowerCertificates(configPath: string, listener: TlsListener | undefined): Promise<ReloadOutcome | undefined> {
  if (listener === undefined) return undefined;
  const file = await loadProxySettings(configPath);
  const errors = !file.ok ? file.errors : file.settings.tls?.enabled === true ? await certificateErrors(listener, file.settings.tls) : [];
  return errors.length === 0 ? undefined : { ok: false, errors, at: new Date().toISOString() };
}

async function certificateErrors(listener: TlsListener, tls: ProxyTlsSettings): Promise<FieldError[]> {
  const loaded = await listener.reload(tls);
  return loaded.ok ? [] : loaded.errors;
}

/** The OTLP span export when `proxy.tracing.otlp` is on (read at boot, like every `proxy` setting). */
async function createSpanExport(settings: ProxySettings, env: NodeJS.ProcessEnv, services: EngineServices): Promise<SpanExport | undefined> {
  const { tracing } = settings;
  if (!tracing.enabled || !tracing.otlp.enabled || tracing.otlp.endpoint === undefined) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (docs/data-plane.md, start-up fourth pass)
  const { OtlpSpanExport, readCollectorHeaders } = require('./adapters/otlp-span-export.adapter.js') as typeof import('./adapters/otlp-span-export.adapter.js');
  const { headers, errors } = readCollectorHeaders(tracing.otlp.headersFromEnv, env);
  if (errors.length > 0) throw new InvalidConfigError(errors);
  const dropped = services.metrics.counter(SPANS_DROPPED);
  return new OtlpSpanExport({
    settings: { ...tracing.otlp, endpoint: tracing.otlp.endpoint },
    headers,
    serviceVersion: services.version,
    logger: services.logger,
    dropped: { queueFull: dropped.labels('queue_full'), exportFailed: dropped.labels('export_failed') },
  });
}

/* eslint-disable @typescript-eslint/no-require-imports */
/**
 * What only a data plane following a control plane uses, loaded before it starts following (not
 * after listening: nothing awaits there). With require(), not import(): no ESM loader
 * (docs/data-plane.md, start-up fourth pass).
 */
function loadClusterModules() {
  const follower = require('./cluster/control-plane-follower.js') as typeof import('./cluster/control-plane-follower.js');
  const member = require('./cluster/cluster-member.js') as typeof import('./cluster/cluster-member.js');
  const registry = require('./policies/telemetry/telemetry-registry.js') as typeof import('./policies/telemetry/telemetry-registry.js');
  const publisher = require('./policies/telemetry/telemetry-publisher.js') as typeof import('./policies/telemetry/telemetry-publisher.js');
  const gauges = require('./policies/telemetry/process-gauges.js') as typeof import('./policies/telemetry/process-gauges.js');
  return {
    ControlPlaneFollower: follower.ControlPlaneFollower,
    ClusterMember: member.ClusterMember,
    TelemetryRegistry: registry.TelemetryRegistry,
    TelemetryPublisher: publisher.TelemetryPublisher,
    ProcessGaugeSampler: gauges.ProcessGaugeSampler,
  };
}
/* eslint-enable @typescript-eslint/no-require-imports */

/** With a control-plane source, reload() asks the follower for a snapshot; the file is not read. */
async function followerOnly(): Promise<ConfigLoad> {
  return { ok: false, errors: [{ field: '(reload)', code: 'RELOAD_FAILED', message: 'routes come from the control plane' }] };
}

/** The drain the CLI also puts in front of a control plane running alone (one SIGTERM behaviour for every role). */
export { DEFAULT_DRAIN_TIMINGS, ServerDrain } from './engine/server-drain';

/** GATEWAY_CA_DIRS of this data plane's environment as the CA file rule; a bad value stops the start naming the variable. */
function caDirectoriesFromEnv(env: NodeJS.ProcessEnv): UpstreamCaFileRule {
  const problems: Array<{ variable: string; message: string }> = [];
  const dirs = parseCaDirs(env, problems);
  if (problems.length > 0) throw new InvalidConfigError(problems.map((p) => ({ field: p.variable, code: 'VALIDATION_ERROR', message: p.message })));
  return caDirectoriesRule(dirs);
}
