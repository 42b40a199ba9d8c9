import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BreakerRecord, HealthCheckStatus, MessageBus, RateLimitUsage, RouteBreakerView, RouteSnapshot } from '@gateway/events';
import type { SecretText } from '@gateway/logging';
import type { Cidr } from '@gateway/outbound-target';
import type { FieldError, RouteDiff } from '@gateway/route-model';
import type { BreakerOpenedEvent } from './policies/circuit-breaker/breaker-events';
import type { DrainTimings } from './engine/server-drain';

/** Where the data plane's routes come from. */
export type RouteSource =
  /** proxy.yml: read at start, re-read by reload() (SIGHUP). */
  | { kind: 'file' }
  /**
   * A control plane: a snapshot at start and whenever the change stream cannot be trusted, then
   * the changes published on `bus`. proxy.yml, when it exists, supplies only its `proxy:` block.
   */
  | { kind: 'control-plane'; bus: MessageBus; fetchSnapshot(): Promise<RouteSnapshot> };

/** Requests under these path prefixes go to `handler` untouched: no route matching, no policies. */
export interface MountOptions {
  /** e.g. ['/api', '/admin']: matches `/api`, `/api/...` and `/api?...`, not `/apis`. */
  prefixes: readonly string[];
  handler(req: IncomingMessage, res: ServerResponse): void;
}

export type ReadinessCheckStatus = 'UP' | 'DOWN';
import type { ApiKeyVerifier } from './policies/auth/api-key-verifier';
import type { ResponseCacheOptions } from './policies/cache/response-cache';

export { HmacApiKeyVerifier, type ApiKeyDigest, type ApiKeyIdentity, type ApiKeyVerifier } from './policies/auth/api-key-verifier';

export interface DataPlaneOptions {
  /** Path of proxy.yml. With a control-plane route source the file is optional. */
  configPath: string;
  /** Where the data plane keeps its state: routes.snapshot.json, reload-status.json (file mode). */
  dataDir: string;
  /** Override `proxy.host` / `proxy.port` (port 0: ephemeral). */
  host?: string;
  port?: number;
  /** pino level: fatal, error, warn, info, debug, trace, silent. Default info. */
  logLevel?: string;
  /**
   * Also receives every log line of at least info, as JSON (a pino destination): in one process,
   * the control plane's ring buffer behind `GET /api/logs`.
   */
  logRecorder?: { write(line: string): void };
  /**
   * Configured secret values replaced in every log line. Default: CLUSTER_TOKEN,
   * CLUSTER_TOKEN_PREVIOUS and API_KEY_SECRET of `env`; in one process, the control plane's set.
   */
  logSecrets?: SecretText;
  /** Gateway version reported by /version (the CLI passes its package version). */
  version?: string;
  /** Default `{ kind: 'file' }`. */
  routeSource?: RouteSource;
  /** One-process mode: the control plane's API and UI served on the proxy port. */
  mount?: MountOptions;
  /**
   * Further readiness checks (database, Redis in one-process mode), merged into `/health/ready`
   * `checks`; any DOWN makes the gateway not ready (503).
   */
  extraReadiness?: () => Promise<Record<string, ReadinessCheckStatus>>;
  /** Redis for shared rate-limit counters (contract: REDIS_URL); unset: in-memory counters. */
  redisUrl?: string;
  /** REDIS_TLS_CA_FILE's PEM: trusted for a rediss:// `redisUrl` (a private CA or self-signed server). */
  redisTlsCa?: string;
  /** Prefix of the data plane's Redis keys. Default `gateway:`. */
  redisKeyPrefix?: string;
  /**
   * How long a rate-limit decision waits for Redis before the local store answers instead
   * (RATE_LIMIT_REDIS_TIMEOUT_MS). Default 50 ms: a slow Redis must never become slow traffic.
   */
  redisCommandTimeoutMs?: number;
  /**
   * Called when a breaker changes to OPEN. With a control-plane route source the data plane also
   * publishes `circuit_breaker.opened` on the bus's events channel (docs/resilience.md).
   */
  onBreakerOpened?: (event: BreakerOpenedEvent) => void;
  /**
   * Publish one-second telemetry windows on the bus (issue 12, docs/telemetry.md). Only a data plane
   * that follows a control plane has a bus; default true there.
   */
  telemetry?: boolean;
  /**
   * Names this data plane in presence announcements, command replies and events when it follows a
   * control plane. Default: `<hostname>-<pid>-<6 random hex>`.
   */
  instanceId?: string;
  /** Where secrets named by the configuration are read (`auth.jwt.secretEnv`). Default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * API-key verification for `auth.type: apiKey` and the apiKey fallback: an HmacApiKeyVerifier
   * built with API_KEY_SECRET (the control plane's server key). A control-plane route source feeds
   * it the keys of every snapshot. Default: a verifier without a server key, so apiKey routes
   * answer 503 AUTH_NOT_CONFIGURED (docs/api-keys.md).
   */
  apiKeys?: ApiKeyVerifier;
  /**
   * OUTBOUND_ALLOW_CIDRS: exceptions to the outbound-target rule that active health checks obey
   * (no cloud metadata, no link-local; docs/deployment.md). Default none.
   */
  outboundAllowCidrs?: readonly Cidr[];
  /**
   * How close() stops: readiness 503 and still serving for `delayMs`, then in-flight requests get
   * up to `timeoutMs` (docs/deployment.md). Default: no delay, 10 s.
   */
  drain?: Partial<DrainTimings>;
  /** Response cache bounds (bytes). Defaults: 100 MiB in total, 10 MB per entry (spec 8). */
  cache?: Pick<ResponseCacheOptions, 'maxBytes' | 'maxEntryBytes'>;
}

/** What the control plane calls in process (its REST endpoints and bus command handlers). */
export interface ResilienceControls {
  breakers: {
    /** Manual Trip; undefined when the route has no breaker (or is unknown). */
    trip(routeId: string, holdUntilMs?: number): RouteBreakerView | undefined;
    reset(routeId: string): RouteBreakerView | undefined;
    /** The spec 2.7 status record of the route's breaker (its own, else its upstream's), with its name and kind. */
    status(routeId: string): RouteBreakerView | undefined;
    all(): BreakerRecord[];
  };
  rateLimits: {
    /** This data plane's counts for the route with its `top` (default 10) busiest keys; undefined when it has no active rate limit. */
    usage(routeId: string, top?: number): RateLimitUsage | undefined;
  };
  health: {
    /** The route's active health check (its own or its upstream's) and its breaker; null where it has none. */
    status(routeId: string): { check: HealthCheckStatus | null; breaker: RouteBreakerView | null };
    all(): Record<string, HealthCheckStatus>;
  };
}

export type ReloadOutcome =
  | { ok: true; routes: number; diff: RouteDiff; at: string; /** The control plane's configuration version. */ version?: number }
  | { ok: false; errors: Array<FieldError & { line?: number }>; at: string };

export interface RunningDataPlane {
  readonly host: string;
  readonly port: number;
  /** The HTTPS listener's port (`proxy.tls`), when it has one. */
  readonly tlsPort?: number;
  /** This data plane's name on the bus (presence, command replies, events). */
  readonly instanceId: string;
  /**
   * File source: re-reads the config file and swaps the route table. Control-plane source: fetches
   * a snapshot now. Never overlaps another reload.
   */
  reload(): Promise<ReloadOutcome>;
  /** In-process controls and status of breakers, rate limits and health checks. */
  readonly resilience: ResilienceControls;
  /** The response cache: `purge(routeId)` drops a route's entries (the control plane's cache-purge command). */
  readonly cache: { purge(routeId: string): number };
  /** The API-key verifier in use (fed from control-plane snapshots, or through `replace`). */
  readonly apiKeys: ApiKeyVerifier;
  /**
   * The graceful stop: readiness 503 at once, serving on for the drain delay, then stops accepting,
   * lets in-flight requests finish (up to the drain timeout), ends event streams, closes upstream sockets.
   */
  close(): Promise<void>;
}

/** Files the data plane writes in its data directory (the CLI reads them). */
export const DATA_FILES = {
  pid: 'gateway.pid',
  snapshot: 'routes.snapshot.json',
  reloadStatus: 'reload-status.json',
} as const;
