import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { MessageBus, RouteSnapshot } from '@gateway/events';
import type { SecretText } from '@gateway/logging';
import type { FieldError, RouteDiff } from '@gateway/route-model';

/** What the CLI hands the control plane (contracts: process composition). */
export interface ControlPlaneOptions {
  /** SQLite file, generated JWT secret and other state live here. */
  dataDir: string;
  /** proxy.yml, reconciled into the store as `source: file` routes. */
  configPath: string;
  /** Set: control-plane role, listens and serves /health*, /version itself. Unset: one-process mode. */
  listen?: { host?: string; port: number };
  /** Gateway version reported by /version. */
  version?: string;
  /** Environment to read (default process.env); tests pass their own. */
  env?: NodeJS.ProcessEnv;
}

export type ReconcileOutcome =
  | { ok: true; dryRun: boolean; version: number; diff: RouteDiff }
  | { ok: false; errors: Array<FieldError & { line?: number }> };

export type CheckStatus = 'UP' | 'DOWN';

export interface ControlPlaneReadiness {
  database: CheckStatus;
  /** Present when REDIS_URL is set. */
  redis?: CheckStatus;
}

export interface RunningControlPlane {
  /** The express instance after init: mount it for `/api/*`, `/admin*` and `/internal/*`. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  bus: MessageBus;
  snapshot(): Promise<RouteSnapshot>;
  /**
   * The server key of API-key digests (API_KEY_SECRET, or generated in the data dir in one-process
   * mode): the data plane in this process builds its verifier with it. Unset only in the
   * control-plane role without API_KEY_SECRET.
   */
  readonly apiKeySecret?: string;
  /**
   * The ring buffer behind `GET /api/logs`, a pino destination: in one process the data plane
   * writes its lines here too, so the API shows both planes.
   */
  readonly logRecorder: { write(line: string): void };
  /** The configured secrets every log line is redacted of (the data plane in this process uses them too). */
  readonly logSecrets: SecretText;
  reconcileFile(opts?: { dryRun?: boolean }): Promise<ReconcileOutcome>;
  /** Where the store is, without credentials (`sqlite:<file>` or `postgres://host:port/db`). */
  readonly store: string;
  /** Paths this process serves itself, so no route may use them (the management prefixes in one process). */
  readonly reservedPathPrefixes: readonly string[];
  readiness(): Promise<ControlPlaneReadiness>;
  /**
   * The listening server when `listen` was given: the caller drains it (stops accepting, lets API
   * calls in flight finish) before close(), which then stops background work and the database.
   */
  readonly httpServer?: Server;
  /** From now on /health/serving and /health/ready answer 503 (the control-plane role's drain). */
  beginDrain(): void;
  /** Set when `listen` was given. */
  host?: string;
  port?: number;
  close(): Promise<void>;
}
