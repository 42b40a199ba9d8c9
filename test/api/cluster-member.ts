import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { REDIS_URL, WEBHOOKS_CLUSTER_TOKEN, WEBHOOKS_JWT_SECRET } from './webhooks-fixtures';

export interface ClusterMemberOptions {
  /** Directory under which each member gets its own data directory, `name`. */
  readonly root: string;
  readonly name: string;
  /** The PostgreSQL every member shares. */
  readonly databaseUrl: string;
  /** The Redis channel prefix every member shares (one per test run). */
  readonly channelPrefix: string;
  /** Settings particular to the test. */
  readonly env?: NodeJS.ProcessEnv;
}

/** One of several control-plane processes on one PostgreSQL and one Redis bus, with one JWT secret and cluster token. */
export function startClusterMember(options: ClusterMemberOptions): Promise<ControlPlaneProcess> {
  const dataDir = path.join(options.root, options.name);
  mkdirSync(dataDir, { recursive: true });
  return startControlPlaneProcess({
    dataDir,
    startTimeoutMs: 60_000,
    env: {
      DATABASE_URL: options.databaseUrl,
      JWT_SECRET: WEBHOOKS_JWT_SECRET,
      CLUSTER_TOKEN: WEBHOOKS_CLUSTER_TOKEN,
      REDIS_URL,
      REDIS_CHANNEL_PREFIX: options.channelPrefix,
      ...options.env,
    },
  });
}
