import http from 'node:http';
import {
  clusterSecrets,
  controlPlaneEnv,
  dataPlaneEnv,
  EMPTY_PROXY_CONFIG,
  loginToManagementApi,
  type ClusterSecrets,
  type ManagementApi,
} from '@gateway/testing';
import { startGateway } from './gateway';
import type { ServerProcess } from './processes';
import type { HarnessContext } from './types';

/** The Redis the cluster scenarios use (each run on its own channel prefix). */
export const BENCH_REDIS_URL = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

export interface BenchControlPlane {
  readonly secrets: ClusterSecrets;
  readonly process: ServerProcess;
  /** An admin's client on its own keep-alive connection. */
  readonly api: ManagementApi;
}

/**
 * `gateway start --role control-plane` with SQLite in a temp dir, the first admin from
 * ADMIN_EMAIL/ADMIN_PASSWORD and the API limits raised (libs/testing's `controlPlaneEnv`: decision
 * 21's 60 admin requests a minute would throttle a benchmark within a second). `redisUrl`
 * undefined: no Redis (in-process bus, in-memory limit counters).
 */
export async function startBenchControlPlane(ctx: HarnessContext, name: string, redisUrl: string | undefined): Promise<BenchControlPlane> {
  const secrets = clusterSecrets(`bench-${name}`);
  const cp = await startGateway(ctx, name, 'control-plane', EMPTY_PROXY_CONFIG, controlPlaneEnv(secrets, redisUrl));
  const api = await loginToManagementApi(cp.origin, secrets.admin, { agent: new http.Agent({ keepAlive: true, maxSockets: 1 }) });
  return { secrets, process: cp, api };
}

/** `count` data planes following that control plane over Redis (`gateway start --role data-plane`). */
export function startBenchDataPlanes(ctx: HarnessContext, controlPlane: BenchControlPlane, redisUrl: string, count: number): Promise<ServerProcess[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      startGateway(ctx, `data-plane-${i + 1}`, 'data-plane', EMPTY_PROXY_CONFIG, dataPlaneEnv(controlPlane.secrets, redisUrl, controlPlane.process.origin)),
    ),
  );
}
