import type { FieldError, RouteDiff } from '@gateway/route-model';

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
}

export type ReloadOutcome =
  | { ok: true; routes: number; diff: RouteDiff; at: string }
  | { ok: false; errors: Array<FieldError & { line?: number }>; at: string };

export interface RunningDataPlane {
  readonly host: string;
  readonly port: number;
  /** Re-reads the config file and swaps the route table; never overlaps another reload. */
  reload(): Promise<ReloadOutcome>;
  /** Stops accepting connections, lets in-flight requests finish (bounded), closes upstream sockets. */
  close(): Promise<void>;
}

/** Files the data plane writes in its data directory (the CLI reads them). */
export const DATA_FILES = {
  pid: 'gateway.pid',
  snapshot: 'routes.snapshot.json',
  reloadStatus: 'reload-status.json',
} as const;
