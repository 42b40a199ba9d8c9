import type { FieldError, ProxyConfig } from '@gateway/route-model';

/**
 * What the proxy.yml worker sends, in order: the configuration without its routes, the routes as
 * JSON text in batches (with a fingerprint each), then `done`; or `failed` with every error.
 * Routes travel as text so receiving a batch is a string copy; the main thread parses them in
 * slices between requests.
 */
export type ConfigWorkerMessage =
  | { kind: 'config'; config: ProxyConfig; routes: number }
  | { kind: 'routes'; json: string[]; fingerprints: string[] }
  | { kind: 'done' }
  | { kind: 'failed'; errors: Array<FieldError & { line?: number }> };
