import type { FieldError, RouteDiff } from '@gateway/route-model';
import type { ApiKeyVerifier } from './policies/auth/api-key-verifier';
import type { ResponseCacheOptions } from './policies/cache/response-cache';

export { HmacApiKeyVerifier, type ApiKeyDigest, type ApiKeyIdentity, type ApiKeyVerifier } from './policies/auth/api-key-verifier';

export interface DataPlaneOptions {
  /** Path of proxy.yml. */
  configPath: string;
  /** Where the data plane keeps its state: routes.snapshot.json, reload-status.json. */
  dataDir: string;
  /** Override `proxy.host` / `proxy.port` (port 0: ephemeral). */
  host?: string;
  port?: number;
  /** pino level: fatal, error, warn, info, debug, trace, silent. Default info. */
  logLevel?: string;
  /** Gateway version reported by /version (the CLI passes its package version). */
  version?: string;
  /** Where secrets named by the configuration are read (`auth.jwt.secretEnv`). Default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * API-key verification for `auth.type: apiKey` and the apiKey fallback. Default: an
   * HmacApiKeyVerifier that knows no keys until the control plane feeds digests (`apiKeys.replace`).
   */
  apiKeys?: ApiKeyVerifier;
  /** Response cache bounds (bytes). Defaults: 100 MiB in total, 10 MB per entry (spec 8). */
  cache?: Pick<ResponseCacheOptions, 'maxBytes' | 'maxEntryBytes'>;
}

export type ReloadOutcome =
  | { ok: true; routes: number; diff: RouteDiff; at: string }
  | { ok: false; errors: Array<FieldError & { line?: number }>; at: string };

export interface RunningDataPlane {
  readonly host: string;
  readonly port: number;
  /** Re-reads the config file and swaps the route table; never overlaps another reload. */
  reload(): Promise<ReloadOutcome>;
  /** The response cache: `purge(routeId)` drops a route's entries (the control plane's cache-purge command). */
  readonly cache: { purge(routeId: string): number };
  /** The API-key verifier in use (the default one takes digests through `replace`). */
  readonly apiKeys: ApiKeyVerifier;
  /** Stops accepting connections, lets in-flight requests finish (bounded), closes upstream sockets. */
  close(): Promise<void>;
}

/** Files the data plane writes in its data directory (the CLI reads them). */
export const DATA_FILES = {
  pid: 'gateway.pid',
  snapshot: 'routes.snapshot.json',
  reloadStatus: 'reload-status.json',
} as const;
