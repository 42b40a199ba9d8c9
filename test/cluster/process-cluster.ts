import {
  clusterSecrets,
  controlPlaneEnv,
  dataPlaneEnv,
  EMPTY_PROXY_CONFIG,
  loginToManagementApi,
  request,
  startGatewayProcess,
  startRedisServer,
  type ClusterSecrets,
  type GatewayProcess,
  type ManagementApi,
  type RedisServer,
} from '@gateway/testing';

/*
 * A real cluster of processes for end-to-end tests: a private redis-server (killable, restartable
 * on its port), `gateway start --role control-plane` (SQLite in its temp dir, the first admin from
 * ADMIN_EMAIL/ADMIN_PASSWORD, raised API limits) and data planes `gateway start --role data-plane`
 * following it (CONTROL_PLANE_URL, CLUSTER_TOKEN, REDIS_URL, a unique REDIS_CHANNEL_PREFIX).
 * Restarts keep the port and the data dir, so the data planes' CONTROL_PLANE_URL stays valid and
 * every process comes back with its own state (database, saved route snapshot).
 */
export class ProcessCluster {
  private constructor(
    readonly secrets: ClusterSecrets,
    readonly redis: RedisServer,
    private cp: GatewayProcess,
    private readonly planes: GatewayProcess[],
    /** An admin's client for the control plane (the token outlives control-plane restarts). */
    readonly api: ManagementApi,
  ) {}

  /** `dataPlaneEnv`: added to every data plane's environment (e.g. DRAIN_DELAY_SECONDS). */
  static async start(options: { dataPlanes?: number; label?: string; dataPlaneEnv?: NodeJS.ProcessEnv } = {}): Promise<ProcessCluster> {
    const secrets = clusterSecrets(options.label ?? 'e2e-cluster');
    const redis = await startRedisServer();
    const started: GatewayProcess[] = [];
    try {
      const cp = await startGatewayProcess({ role: 'control-plane', config: EMPTY_PROXY_CONFIG, env: controlPlaneEnv(secrets, redis.url), startTimeoutMs: 30_000 });
      started.push(cp);
      const planes = await Promise.all(
        Array.from({ length: options.dataPlanes ?? 2 }, () =>
          startGatewayProcess({ role: 'data-plane', config: EMPTY_PROXY_CONFIG, env: { ...dataPlaneEnv(secrets, redis.url, cp.url), ...options.dataPlaneEnv }, startTimeoutMs: 30_000 }).then((dp) => {
            started.push(dp);
            return dp;
          }),
        ),
      );
      const api = await loginToManagementApi(cp.url, secrets.admin);
      return new ProcessCluster(secrets, redis, cp, planes, api);
    } catch (error) {
      await Promise.all(started.map((p) => p.stop()));
      await redis.stop();
      throw error;
    }
  }

  get controlPlane(): GatewayProcess {
    return this.cp;
  }

  get dataPlanes(): readonly GatewayProcess[] {
    return this.planes;
  }

  /** SIGKILL of the control plane (a crash); its data dir and port are kept for `restartControlPlane()`. */
  killControlPlane(): Promise<void> {
    return this.cp.kill();
  }

  /** Starts the control plane again on its port with its data dir (after `killControlPlane()`). */
  async restartControlPlane(): Promise<void> {
    this.cp = await this.cp.restart();
  }

  /** SIGKILL of one data plane, then the same data plane again (port, data dir, environment). */
  async restartDataPlane(index: number): Promise<GatewayProcess> {
    const plane = this.planes[index];
    if (plane === undefined) throw new Error(`no data plane ${index}`);
    await plane.kill();
    const again = await plane.restart();
    this.planes[index] = again;
    return again;
  }

  /**
   * A rolling update's step for one data plane: SIGTERM (it drains), wait for its exit, start the
   * same data plane again. Resolves with its exit code and the new process.
   */
  async drainAndRestartDataPlane(index: number): Promise<{ exitCode: number | null; plane: GatewayProcess }> {
    const plane = this.planes[index];
    if (plane === undefined) throw new Error(`no data plane ${index}`);
    plane.signal('SIGTERM');
    const exitCode = await plane.exited;
    const again = await plane.restart();
    this.planes[index] = again;
    return { exitCode, plane: again };
  }

  /** `<status> <body>` of GET `urlPath` through every data plane (body only for 200s). */
  async servedByEach(urlPath: string): Promise<string[]> {
    return Promise.all(this.planes.map(async (dp) => {
      const res = await request(`${dp.url}${urlPath}`, { timeoutMs: 3000 });
      return res.status === 200 ? `200 ${res.text}` : String(res.status);
    }));
  }

  /** Whether every data plane answers GET `urlPath` with `expected` (`200 <body>` or a bare status). */
  async everyPlaneAnswers(urlPath: string, expected: string): Promise<boolean> {
    return (await this.servedByEach(urlPath)).every((answer) => answer === expected);
  }

  async close(): Promise<void> {
    await Promise.all([...this.planes, this.cp].map((p) => p.stop()));
    await this.redis.stop();
  }
}

/** Proxied traffic through some data planes until stopped; every answer but a 200 with `expectedBody` is a failure. */
export interface Traffic {
  /** Stops the loops and resolves with their tally once the requests in flight have finished. */
  stop(): Promise<{ sent: number; failures: string[] }>;
}

/**
 * One sequential loop per data plane (or per entry: the same balancer may be given several times), a fresh connection per request and a short pause between
 * requests (a steady trickle, not a load test on a shared 2-core machine).
 */
export function startTraffic(planes: ReadonlyArray<Pick<GatewayProcess, 'url'>>, urlPath: string, expectedBody: string, pauseMs = 10): Traffic {
  let running = true;
  let sent = 0;
  const failures: string[] = [];
  const loop = async (dp: Pick<GatewayProcess, 'url'>): Promise<void> => {
    while (running) {
      sent += 1;
      try {
        const res = await request(`${dp.url}${urlPath}`, { timeoutMs: 5000 });
        if (res.status !== 200 || res.text !== expectedBody) failures.push(`${dp.url}${urlPath}: ${res.status} ${res.text.slice(0, 200)}`);
      } catch (error) {
        failures.push(`${dp.url}${urlPath}: ${error instanceof Error ? error.message : String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  };
  const loops = planes.map(loop);
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return { sent, failures };
    },
  };
}
