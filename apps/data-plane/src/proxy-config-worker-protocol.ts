import type { FieldError, ProxyConfig } from '@gateway/route-model';

/** Bytes of a route's fingerprint at the start of its record in `RouteRecords.bytes` (base64url, ASCII). */
export const FINGERPRINT_BYTES = 22;

/**
 * Every route of the file in two buffers. `bytes` holds the routes as JSON text (UTF-8), route i
 * at `bytes[jsonStarts[i], ends[i])`, joined by ELEMENT_SEPARATOR (engine/state-files.ts): the
 * whole buffer is the routes array of routes.snapshot.json as written, so the snapshot takes it
 * in a few large writes instead of 10,000 pieces gathered and copied on the event loop. `heads`
 * holds route i's fingerprint (FINGERPRINT_BYTES) and then its id, up to `headEnds[i]`. The
 * arrays are transferred, not copied: receiving 10,000 routes costs the event loop nothing, where
 * a message of strings is deserialized whole in one task (and every batch waiting is read in the
 * same task). The id and fingerprint come apart from the JSON so that a route the running table
 * already has, with the same fingerprint, is not parsed at all.
 */
export interface RouteRecords {
  readonly bytes: Uint8Array;
  readonly jsonStarts: Uint32Array;
  readonly ends: Uint32Array;
  readonly heads: Uint8Array;
  readonly headEnds: Uint32Array;
}

/** What the main thread asks the proxy.yml worker: read this file (`read` numbers the request). */
export interface ConfigWorkerRequest {
  readonly read: number;
  readonly filePath: string;
}

/**
 * What the proxy.yml worker sends for request `read`, in order: the configuration without its
 * routes, the routes (RouteRecords), then `done`; or `failed` with every error. The main thread
 * decodes and parses the routes one at a time, in slices between requests.
 */
export type ConfigWorkerMessage = { read: number } & (
  | { kind: 'config'; config: ProxyConfig; routes: number }
  | { kind: 'routes'; records: RouteRecords }
  | { kind: 'done' }
  | { kind: 'failed'; errors: Array<FieldError & { line?: number }> }
);
