import { readFile } from 'node:fs/promises';
import type { ApiKeyDigest } from '@gateway/events';
import type { Route, SessionAuthenticationConfig, UpstreamDefinition } from '@gateway/route-model';

/**
 * `routes.snapshot.json`: the configuration the data plane applied last. Written after every
 * applied change; a data plane following a control plane starts from it when the control plane is
 * unreachable. Files written before `version`, `source` and `upstreams` existed hold only
 * `{ appliedAt, routes }` and are still read.
 */
export interface PersistedRouteSnapshot {
  /** ISO 8601. */
  appliedAt: string;
  /** 'file': proxy.yml; 'control-plane': snapshots and changes from a control plane. */
  source: 'file' | 'control-plane';
  /** The control plane's configuration version, when the routes came from one. */
  version?: number;
  routes: Route[];
  upstreams: UpstreamDefinition[];
  authentication?: SessionAuthenticationConfig;
  /**
   * The control plane's active API keys as digests (never keys), so a data plane that starts
   * while the control plane is away still accepts them.
   */
  apiKeys?: ApiKeyDigest[];
  apiKeySecretFingerprint?: string;
}

/** The control plane's active keys at one configuration version, as a snapshot carries them. */
export interface ApiKeySet {
  readonly keys: readonly ApiKeyDigest[];
  /** apiKeySecretFingerprint of the control plane's API_KEY_SECRET, when it has one. */
  readonly secretFingerprint?: string;
}

/** Largest snapshot file read back; a route set is never legitimately this big. */
const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;

export type PersistedSnapshotRead =
  | { kind: 'found'; snapshot: PersistedRouteSnapshot }
  | { kind: 'missing' }
  | { kind: 'unreadable'; reason: string };

/**
 * Reads the file back. Only the envelope is checked here (types of the top-level fields); routes
 * and upstreams are untrusted input that the caller validates one by one.
 */
export async function readPersistedSnapshot(filePath: string): Promise<PersistedSnapshotRead> {
  let text: string;
  try {
    const buffer = await readFile(filePath);
    if (buffer.length > MAX_SNAPSHOT_BYTES) return { kind: 'unreadable', reason: `larger than ${MAX_SNAPSHOT_BYTES} bytes` };
    text = buffer.toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { kind: 'missing' } : { kind: 'unreadable', reason: code ?? String(error) };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'unreadable', reason: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'unreadable', reason: 'not a JSON object' };
  const raw = value as Record<string, unknown>;
  if (!Array.isArray(raw['routes'])) return { kind: 'unreadable', reason: 'no "routes" array' };
  if (raw['upstreams'] !== undefined && !Array.isArray(raw['upstreams'])) return { kind: 'unreadable', reason: '"upstreams" is not an array' };
  const version = raw['version'];
  if (version !== undefined && !(Number.isSafeInteger(version) && (version as number) >= 0)) {
    return { kind: 'unreadable', reason: '"version" is not a non-negative integer' };
  }
  const auth = raw['authentication'];
  return {
    kind: 'found',
    snapshot: {
      appliedAt: typeof raw['appliedAt'] === 'string' ? raw['appliedAt'] : 'an unknown time',
      source: raw['source'] === 'control-plane' ? 'control-plane' : 'file',
      ...(version === undefined ? {} : { version: version as number }),
      routes: raw['routes'] as Route[],
      upstreams: (raw['upstreams'] as UpstreamDefinition[] | undefined) ?? [],
      ...(typeof auth === 'object' && auth !== null ? { authentication: auth as SessionAuthenticationConfig } : {}),
      // Untrusted like the routes: checked entry by entry when applied (readApiKeySet).
      ...(raw['apiKeys'] === undefined ? {} : { apiKeys: raw['apiKeys'] as ApiKeyDigest[] }),
      ...(raw['apiKeySecretFingerprint'] === undefined ? {} : { apiKeySecretFingerprint: raw['apiKeySecretFingerprint'] as string }),
    },
  };
}
